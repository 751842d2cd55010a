package agent_test

import (
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
)

// A reply whose stop reason arrives with (or before) the byte that dooms
// its answer has come whole — from a server that does not stream, or a
// framework that gives the reply at its end — so cutting it would save
// nothing: the answer is judged whole, its row is not cut, and the
// corrective turn does not say that the rest went unread. The same reply
// still streaming (its stop in a later chunk) is cut.
func TestAReplyThatCameWholeIsJudgedWholeNotCut(t *testing.T) {
	answer := `{"city":"Paris","tempC":"21"}` // doomed at the quote before 21
	tests := []struct {
		name             string
		opts             []agent.Option
		whole, streaming agenttest.Step
		next             agenttest.Step
	}{
		{"prompted, the stop with the text", nil,
			agenttest.Chunks(agent.Chunk{Text: answer, Stop: agent.StopComplete, Usage: agent.Usage{InputTokens: 7, OutputTokens: 5}}),
			agenttest.Chunks(agent.Chunk{Text: answer}, agent.Chunk{Stop: agent.StopComplete}),
			agenttest.Reply(valid)},
		{"an output tool's call after the stop", []agent.Option{agent.WithOutputTool("answer")},
			agenttest.Chunks(agent.Chunk{Stop: agent.StopToolUse, Usage: agent.Usage{InputTokens: 7, OutputTokens: 5}},
				agent.Chunk{Call: &agent.CallDelta{ID: "c1", Name: "answer", Arguments: answer}}),
			agenttest.Chunks(agent.Chunk{Call: &agent.CallDelta{ID: "c1", Name: "answer", Arguments: answer}}, agent.Chunk{Stop: agent.StopToolUse}),
			agenttest.CallTools(agenttest.Call("c2", "answer", valid))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := func(first agenttest.Step) *agent.Result {
				t.Helper()
				m := agenttest.NewStreamingModel(t, first, tt.next)
				opts := append([]agent.Option{agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2)}, tt.opts...)
				res, err := agent.New(m, opts...).Run(t.Context(), "Weather in Paris?")
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			whole := run(tt.whole)
			r := whole.Attempts[0]
			if r.Cut != nil || r.Path != "/tempC" || r.Cost.OutputTokens != 5 {
				t.Errorf("row 1 of the whole reply = %+v, want not cut, failed at /tempC, its 5 output tokens", r)
			}
			for _, msg := range whole.Messages {
				if strings.Contains(msg.Content, "We stopped reading") {
					t.Errorf("a corrective turn says the whole reply went unread: %q", msg.Content)
				}
			}
			if r := run(tt.streaming).Attempts[0]; r.Cut == nil {
				t.Errorf("row 1 of the streaming reply = %+v, want cut", r)
			}
		})
	}
}
