package enforce_test

import (
	"context"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// BenchmarkJudgeValidators1KiB judges the passing ~1 KiB order with a
// ledger: the schema alone, then with an untyped validator (which parses
// the answer again) and with a typed one (which decodes it into a struct).
func BenchmarkJudgeValidators1KiB(b *testing.B) {
	type item struct {
		SKU string `json:"sku"`
		Qty int    `json:"qty"`
	}
	type order struct {
		Items []item `json:"items"`
	}
	untyped := enforce.NewValidator("untyped", func(_ context.Context, a any, _ enforce.Try) ([]enforce.Issue, error) {
		_ = a.(map[string]any)["items"]
		return nil, nil
	})
	typed := enforce.NewValidator("typed", func(_ context.Context, o order, _ enforce.Try) ([]enforce.Issue, error) {
		_ = len(o.Items)
		return nil, nil
	})
	s, err := enforce.CompileSchema([]byte(orderSchema))
	if err != nil {
		b.Fatal(err)
	}
	answer := orderAnswer()
	for _, bc := range []struct {
		name string
		vs   []enforce.Validator
	}{{"schema", nil}, {"untyped", []enforce.Validator{untyped}}, {"typed", []enforce.Validator{typed}}} {
		c, err := s.WithValidators(bc.vs...)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				l, _ := enforce.NewLedger(c, 2)
				if v := l.Judge(ctx, enforce.Answer{Iteration: 1, Given: answer}); v.Row.Outcome != enforce.OutcomePassed {
					b.Fatal(v.Row)
				}
			}
		})
	}
}
