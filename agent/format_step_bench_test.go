package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
)

// wireModel answers as a reasoning model over a scripted wire and counts
// tokens as a provider would bill them, at four bytes a token: every
// byte of the request it is sent (messages, tools, output schema) as
// input, its thinking and answer as output. Asked with a contract (an
// output schema), it answers in JSON; asked freely, in prose. Only the
// free answer is thought about: formatting is copying.
type wireModel struct {
	thinking, prose, json string
}

func (m wireModel) Generate(_ context.Context, req agent.Request) (agent.Response, error) {
	in := len(req.OutputSchema)
	for _, msg := range req.Messages {
		in += len(msg.Content) + len(msg.Reasoning)
	}
	for _, t := range req.Tools {
		in += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	msg := agent.Message{Role: agent.RoleAssistant, Content: m.json}
	if req.OutputSchema == nil {
		msg.Content, msg.Reasoning = m.prose, m.thinking
	} else if !strings.Contains(req.Messages[len(req.Messages)-1].Content, m.prose) {
		msg.Reasoning = m.thinking // the direct call thinks as the free one does
	}
	out := len(msg.Content) + len(msg.Reasoning)
	return agent.Response{Message: msg, Usage: agent.Usage{InputTokens: tokens(in), OutputTokens: tokens(out)}}, nil
}

func tokens(bytes int) int { return (bytes + 3) / 4 }

// BenchmarkFormatStep compares a direct structured call with
// [agent.WithFormatStep] on the same reasoning model and on a second
// (formatting) model, for BenchmarkRunTyped1KiB's contract: tokens in and
// out per run (as wireModel bills them), and requests, as metrics.
func BenchmarkFormatStep(b *testing.B) {
	answer := report1KiB(b)
	var prose strings.Builder
	prose.WriteString("Quarterly stock count for the Paris warehouse. ")
	for i := range 17 {
		fmt.Fprintf(&prose, "Item-%02d: %d on the shelf, counted twice, ok. ", i, i*7)
	}
	thinking := strings.Repeat("Count each shelf, then check the totals against the ledger. ", 32) // 2 KiB
	m := wireModel{thinking: thinking, prose: prose.String(), json: answer}
	formatter := wireModel{prose: prose.String(), json: answer}
	for _, bc := range []struct {
		name string
		opts []agent.Option
	}{
		{"direct", nil},
		{"format-same", []agent.Option{agent.WithFormatStep(nil)}},
		{"format-other", []agent.Option{agent.WithFormatStep(formatter)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			a := agent.New(m, append(bc.opts, agent.WithOutputRetries(2))...)
			ctx := context.Background()
			var res *agent.Result
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if _, res, err = agent.RunTyped[Report](ctx, a, "Count the stock."); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.Usage.InputTokens), "in-tokens/op")
			b.ReportMetric(float64(res.Usage.OutputTokens), "out-tokens/op")
			requests := 0
			for _, m := range res.Models {
				requests += m.Requests
			}
			b.ReportMetric(float64(requests), "requests/op")
			if len(res.Models) > 1 {
				f := res.Models[len(res.Models)-1]
				b.ReportMetric(float64(f.Usage.InputTokens+f.Usage.OutputTokens), "format-tokens/op")
			}
		})
	}
}
