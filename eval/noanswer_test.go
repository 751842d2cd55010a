package eval_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/eval"
)

// thinker answers "oslo" at once, and for any other prompt spends its
// output limit thinking: no answer comes.
func thinker() agent.Model {
	return agent.ModelFunc(func(_ context.Context, req agent.Request) (agent.Response, error) {
		if req.Messages[len(req.Messages)-1].Content == "oslo" {
			return agent.Response{Message: agent.Message{Content: `{"city":"Oslo","tempC":3}`}}, nil
		}
		return agent.Response{Message: agent.Message{Content: "<think>Hmm, let me think"}, Stop: agent.StopLength}, nil
	})
}

func TestLiveCountsAnAnswerThatNeverCameApart(t *testing.T) {
	rep, err := eval.Live(t.Context(), strings.NewReader(liveDataset("oslo", "lima")), eval.LiveOptions{
		Model: thinker(),
		Agent: []agent.Option{agent.WithOutputRetries(0)},
	})
	if err != nil {
		t.Fatal(err)
	}
	g := rep.Groups[0]
	if g.NoAnswer != 1 || g.Exhausted != 0 || g.PassedAfterRetry != 1 {
		t.Errorf("group = %+v, want 1 run with no answer, none exhausted, 1 passed", g)
	}
	if r := rep.Cases[1].Runs[0]; !r.NoAnswer || r.Exhausted {
		t.Errorf("the thinker's run = %+v, want no answer, not exhausted", r)
	}
	var page bytes.Buffer
	if err := eval.WriteHTML(&page, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "no answer came") {
		t.Errorf("the page does not show the run with no answer apart")
	}
}
