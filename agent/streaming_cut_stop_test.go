package agent_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
)

// A reply the loop cut at the answer size bound never reached the stop
// reason its last chunk carried: its row is the same however the reply
// was chunked, and a StopLength in the chunk that was cut does not mark
// the cut answer Truncated. (An early verdict in the chunk that carries
// the stop cuts nothing: see TestAReplyThatCameWholeIsJudgedWholeNotCut.)
func TestACutReplyIsNotTruncatedByTheStopOfTheChunkItWasCutIn(t *testing.T) {
	long := hugeAnswer[:4*replyBound]
	tests := []struct {
		name string
		opts []agent.Option
		// together sends the dooming byte and StopLength in one chunk;
		// apart sends the same reply, the stop in a chunk of its own.
		together, apart agenttest.Step
		next            agenttest.Step // the answer that passes
	}{
		{"cut at the size bound", []agent.Option{agent.WithOutputSchema(weatherSchema(t).WithMaxAnswerBytes(replyBound)), agent.WithEarlyAbort(false)},
			agenttest.Chunks(agent.Chunk{Text: long, Stop: agent.StopLength, StopRaw: "length"}),
			agenttest.Chunks(agent.Chunk{Text: long}, agent.Chunk{Stop: agent.StopLength, StopRaw: "length"}),
			agenttest.Reply(valid)},
		{"an output tool's call cut at the size bound",
			[]agent.Option{agent.WithOutputSchema(weatherSchema(t).WithMaxAnswerBytes(replyBound)), agent.WithOutputTool("answer")},
			agenttest.Chunks(agent.Chunk{Call: &agent.CallDelta{ID: "c1", Name: "answer", Arguments: long}, Stop: agent.StopLength, StopRaw: "length"}),
			agenttest.Chunks(agent.Chunk{Call: &agent.CallDelta{ID: "c1", Name: "answer", Arguments: long}}, agent.Chunk{Stop: agent.StopLength, StopRaw: "length"}),
			agenttest.CallTools(agenttest.Call("c2", "answer", valid))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := func(first agenttest.Step) *agent.Result {
				t.Helper()
				m := agenttest.NewStreamingModel(t, first, tt.next)
				opts := append([]agent.Option{agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2),
					agent.WithClock(func() time.Time { return time.Unix(0, 0) })}, tt.opts...)
				res, err := agent.New(m, opts...).Run(t.Context(), "Weather in Paris?")
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			together, apart := run(tt.together), run(tt.apart)
			r := together.Attempts[0]
			if r.Cut == nil || r.Truncated {
				t.Errorf("row 1 = %+v, want cut and not Truncated: the answer kept never reached the stop", r)
			}
			if !reflect.DeepEqual(together.Attempts, apart.Attempts) {
				t.Errorf("rows with the stop in the cut chunk:\n%+v\nwant those with it apart:\n%+v", together.Attempts, apart.Attempts)
			}
			if !reflect.DeepEqual(together.Messages, apart.Messages) {
				t.Errorf("conversation with the stop in the cut chunk:\n%+v\nwant the one with it apart:\n%+v", together.Messages, apart.Messages)
			}
		})
	}
}
