package agent_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

// allocated is the bytes allocated while f runs.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A chunk far past every bound is not copied whole: only what decides
// the reply's fate is read, and the verdict is the one the whole chunk
// would get.
func TestAHugeChunkIsBoundedBeforeItIsCopied(t *testing.T) {
	huge := `{"city":"` + strings.Repeat("x", 100<<20) + `"}`
	lookup := agent.NewTool("lookup", "", func(context.Context, struct{}) (string, error) { return "", nil })
	cutRow := func(t *testing.T, res *agent.Result, err error) {
		if err != nil {
			t.Fatal(err)
		}
		if r := res.Attempts[0]; r.Stage != enforce.StageJSONParse || r.Cut == nil || r.Cut.Bytes != enforce.MaxAnswerBytes+1 {
			t.Errorf("row 1 = %+v, want json-parse, cut after %d bytes", r, enforce.MaxAnswerBytes+1)
		}
	}
	tests := []struct {
		name  string
		steps []agenttest.Step
		opts  []agent.Option
		check func(t *testing.T, res *agent.Result, err error)
	}{
		{"an answer is cut at the byte past its bound",
			[]agenttest.Step{agenttest.Chunks(agent.Chunk{Text: huge}), agenttest.Reply(valid)},
			nil, cutRow},
		{"the output tool's arguments are cut at the byte past their bound",
			[]agenttest.Step{
				agenttest.Chunks(agent.Chunk{Call: &agent.CallDelta{ID: "c1", Name: "answer", Arguments: huge}}),
				agenttest.CallTools(agenttest.Call("c2", "answer", valid)),
			},
			[]agent.Option{agent.WithOutputTool("answer")}, cutRow},
		{"text that may become a tool call fails the reply's bound",
			[]agenttest.Step{agenttest.Chunks(agent.Chunk{Text: huge})},
			[]agent.Option{agent.WithTools(lookup)},
			func(t *testing.T, res *agent.Result, err error) {
				if !errors.Is(err, agent.ErrModel) {
					t.Errorf("err = %v, want ErrModel", err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := agenttest.NewStreamingModel(t, tt.steps...)
			opts := append([]agent.Option{agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1)}, tt.opts...)
			var res *agent.Result
			var err error
			n := allocated(func() { res, err = agent.New(m, opts...).Run(t.Context(), "Weather in Paris?") })
			if n > 32<<20 {
				t.Errorf("the run allocated %d MiB for a %d MiB chunk, want at most 32", n>>20, len(huge)>>20)
			}
			tt.check(t, res, err)
		})
	}
}

// Chunks that add no bytes grow no size bound; endless ones end the call
// once one reply holds more than its bound of them, not at the caller's
// deadline.
func TestEndlessChunksWithoutBytesFailTheCall(t *testing.T) {
	tests := []struct {
		name  string
		chunk agent.Chunk
	}{
		{"empty chunks", agent.Chunk{}},
		{"usage only", agent.Chunk{Usage: agent.Usage{InputTokens: 7, OutputTokens: 1}}},
		{"a stop only", agent.Chunk{Stop: agent.StopComplete, StopRaw: "stop"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			yields := 0
			m := chunks(func(yield func(agent.Chunk, error) bool) {
				yield(agent.Chunk{Text: "{"}, nil)
				// Endless but for a stop far past the bound, so that a
				// loop without it fails the test instead of hanging it.
				for yields = 1; yields < 4*agent.MaxIdleChunks && yield(tt.chunk, nil); yields++ {
				}
			})
			_, err := agent.New(m, agent.WithOutputSchema(weatherSchema(t))).Run(t.Context(), "Weather in Paris?")
			if !errors.Is(err, agent.ErrModel) {
				t.Errorf("err = %v, want ErrModel", err)
			}
			if want := agent.MaxIdleChunks + 1; yields != want {
				t.Errorf("the model yielded %d empty chunks, want the loop to stop at the %dth", yields, want)
			}
		})
	}
}
