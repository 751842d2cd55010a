package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// Report is the contract of the benchmarks: a ~1 KiB answer.
type Report struct {
	Title string       `json:"title"`
	Items []ReportItem `json:"items"`
}

type ReportItem struct {
	Name string `json:"name"`
	Qty  int    `json:"qty"`
	Note string `json:"note"`
}

func report1KiB(tb testing.TB) string {
	tb.Helper()
	r := Report{Title: "Quarterly stock count for the Paris warehouse"}
	for i := range 17 {
		r.Items = append(r.Items, ReportItem{Name: fmt.Sprintf("item-%02d", i), Qty: i * 7, Note: "counted twice, ok"})
	}
	b, err := json.Marshal(r)
	if err != nil {
		tb.Fatal(err)
	}
	if n := len(b); n < 900 || n > 1200 {
		tb.Fatalf("answer is %d bytes, want about 1 KiB", n)
	}
	return string(b)
}

// BenchmarkCheck1KiB judges the answer alone: the floor for a run.
func BenchmarkCheck1KiB(b *testing.B) {
	answer := report1KiB(b)
	s, err := enforce.SchemaFor[Report]()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Check(answer); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunTyped1KiB is a one-iteration typed run with retries on and a
// model that costs nothing, so what remains is the loop's own overhead on
// top of judging (and decoding into T).
func BenchmarkRunTyped1KiB(b *testing.B) {
	answer := report1KiB(b)
	model := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: answer}}, nil
	})
	a := agent.New(model, agent.WithOutputRetries(2))
	ctx := context.Background()
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := agent.RunTyped[Report](ctx, a, "Count the stock."); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRun1KiB is the same run untyped: judging plus the loop, without
// decoding into T, so it isolates what the loop itself adds.
func BenchmarkRun1KiB(b *testing.B) { benchRun1KiB(b, context.Background()) }

// benchRun1KiB runs BenchmarkRun1KiB under ctx.
func benchRun1KiB(b *testing.B, ctx context.Context) {
	answer := report1KiB(b)
	s, err := enforce.SchemaFor[Report]()
	if err != nil {
		b.Fatal(err)
	}
	model := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: answer}}, nil
	})
	a := agent.New(model, agent.WithOutputSchema(s), agent.WithOutputRetries(2))
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Run(ctx, "Count the stock."); err != nil {
			b.Fatal(err)
		}
	}
}

// largeSchema is a contract of about 3.9 KB, the size that made copying
// the schema text per run show up in a profile.
func largeSchema(tb testing.TB) *enforce.Schema {
	tb.Helper()
	props := map[string]any{}
	for i := range 45 {
		props[fmt.Sprintf("field%02d", i)] = map[string]any{
			"type": "string", "description": "a free-text field the model may leave out",
		}
	}
	b, err := json.Marshal(map[string]any{"type": "object", "properties": props})
	if err != nil {
		tb.Fatal(err)
	}
	if n := len(b); n < 3500 || n > 4300 {
		tb.Fatalf("schema is %d bytes, want about 3.9 KB", n)
	}
	s, err := enforce.CompileSchema(b)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkRunLargeSchema is a one-iteration run under a 3.9 KB contract
// with a tiny answer, so what the contract text costs per run shows.
func BenchmarkRunLargeSchema(b *testing.B) {
	s := largeSchema(b)
	model := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: `{"field01":"x"}`}}, nil
	})
	a := agent.New(model, agent.WithOutputSchema(s), agent.WithSystemPrompt("You count stock."))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Run(ctx, "Count the stock."); err != nil {
			b.Fatal(err)
		}
	}
}
