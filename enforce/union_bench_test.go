package enforce_test

import (
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// BenchmarkUnionCheck compares judging a union's answer with judging its
// member's value alone: the wrapper, and, for an answer naming no
// member, each member's issues.
func BenchmarkUnionCheck(b *testing.B) {
	r, _ := enforce.SchemaFor[uRefund]()
	e, _ := enforce.SchemaFor[uEscalation]()
	u, err := enforce.Union(enforce.UnionMember{Name: "refund", Schema: r}, enforce.UnionMember{Name: "escalation", Schema: e})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		s      *enforce.Schema
		answer string
	}{
		{"member alone/pass", r, `{"order":"A1","amount":5,"note":{"text":"late"}}`},
		{"union/pass", u, `{"refund":{"order":"A1","amount":5,"note":{"text":"late"}}}`},
		{"member alone/fail", r, `{"order":"A1","amount":"5"}`},
		{"union/fail in the member", u, `{"refund":{"order":"A1","amount":"5"}}`},
		{"union/fail naming none", u, `{"order":"A1","amount":"5"}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = bc.s.Check(bc.answer)
			}
		})
	}
}
