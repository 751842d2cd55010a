package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

// Every part of a streamed reply — its text, and each tool call's
// arguments — is read no further than the byte past the contract's answer
// size bound (without a contract, enforce.MaxAnswerBytes): a model that
// writes without end costs bounded memory, whatever the run offers it.

const replyBound = 64

// hugeAnswer is an answer far past replyBound, streamed 16 bytes a chunk.
var hugeAnswer = `{"city":"` + strings.Repeat("Paris ", 10_000) + `","tempC":21}`

// stoppedAtBound fails t unless the model's stream was stopped and
// cancelled within a chunk of the byte past n.
func stoppedAtBound(t *testing.T, c agenttest.Consumed, n, chunk int) {
	t.Helper()
	if !c.Stopped || !c.Cancelled || c.Chunks*chunk > n+2*chunk {
		t.Errorf("consumed %+v, want the stream stopped and cancelled within a chunk of byte %d", c, n+1)
	}
}

// tooLongRow fails t unless r is the row of an answer cut at the byte past
// the bound, with the verdict Check gives the whole answer.
func tooLongRow(t *testing.T, r enforce.Attempt, want *enforce.CheckError) {
	t.Helper()
	if r.Outcome != enforce.OutcomeRetried || r.Stage != enforce.StageJSONParse || r.Error != want.Issues[0].Message ||
		r.Cut == nil || r.Cut.Bytes != replyBound+1 {
		t.Errorf("row 1 = %+v, want retried at json-parse with Check's %q, cut after %d bytes", r, want.Issues[0].Message, replyBound+1)
	}
}

func TestAStreamedAnswerIsBoundedWithToolsOffered(t *testing.T) {
	schema := weatherSchema(t).WithMaxAnswerBytes(replyBound)
	lookup := agent.NewTool("lookup", "", func(context.Context, struct{}) (string, error) { return "", nil })
	m := agenttest.NewStreamingModel(t, agenttest.Reply(hugeAnswer).InChunks(16), agenttest.Reply(valid))
	a := agent.New(m, agent.WithOutputSchema(schema), agent.WithOutputRetries(1), agent.WithTools(lookup))

	res, err := a.Run(t.Context(), "?")
	if err != nil {
		t.Fatal(err)
	}
	stoppedAtBound(t, m.Consumed()[0], replyBound, 16)
	if got := res.Messages[2].Content; got != hugeAnswer[:replyBound+1] {
		t.Errorf("the conversation keeps %d bytes of the answer, want %d", len(got), replyBound+1)
	}
	tooLongRow(t, res.Attempts[0], checkError(t, schema, hugeAnswer))
	if len(res.Attempts) != 2 || res.Attempts[1].Outcome != enforce.OutcomePassed {
		t.Errorf("rows = %+v, want a second that passed", res.Attempts)
	}
}

func TestAStreamedOutputToolCallIsBoundedAsTheAnswer(t *testing.T) {
	schema := weatherSchema(t).WithMaxAnswerBytes(replyBound)
	m := agenttest.NewStreamingModel(t,
		agenttest.CallTools(agenttest.Call("c1", "answer", hugeAnswer)).InChunks(16),
		agenttest.CallTools(agenttest.Call("c2", "answer", valid)))
	a := agent.New(m, agent.WithOutputSchema(schema), agent.WithOutputRetries(1), agent.WithOutputTool("answer"))

	res, err := a.Run(t.Context(), "?")
	if err != nil {
		t.Fatal(err)
	}
	stoppedAtBound(t, m.Consumed()[0], replyBound, 16)
	if calls := res.Messages[2].ToolCalls; len(calls) != 1 || string(calls[0].Arguments) != hugeAnswer[:replyBound+1] {
		t.Errorf("the conversation keeps %d calls, want one with its arguments cut to %d bytes", len(calls), replyBound+1)
	}
	tooLongRow(t, res.Attempts[0], checkError(t, schema, hugeAnswer))
	if len(res.Attempts) != 2 || res.Attempts[1].Outcome != enforce.OutcomePassed {
		t.Errorf("rows = %+v, want a second that passed", res.Attempts)
	}
}

func TestAStreamedToolCallPastTheBoundFailsTheModelCall(t *testing.T) {
	huge := `{"q":"` + strings.Repeat("x", 10_000) + `"}`
	ran := false
	lookup := agent.NewTool("lookup", "", func(context.Context, struct{ Q string }) (string, error) {
		ran = true
		return "", nil
	})
	for _, tc := range []struct {
		name  string
		opts  []agent.Option
		bound int
	}{
		{"with a contract", []agent.Option{agent.WithOutputSchema(weatherSchema(t).WithMaxAnswerBytes(replyBound)), agent.WithOutputRetries(1)}, replyBound},
		{"with an output tool", []agent.Option{agent.WithOutputSchema(weatherSchema(t).WithMaxAnswerBytes(replyBound)), agent.WithOutputTool("answer")}, replyBound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := agenttest.NewStreamingModel(t, agenttest.CallTools(agenttest.Call("c1", "lookup", huge)).InChunks(16))
			res, err := agent.New(m, append(tc.opts, agent.WithTools(lookup))...).Run(t.Context(), "?")
			if !errors.Is(err, agent.ErrModel) {
				t.Errorf("err = %v, want an ErrModel", err)
			}
			stoppedAtBound(t, m.Consumed()[0], tc.bound, 16)
			if ran || len(res.Attempts) != 0 || len(res.Messages) != 2 {
				t.Errorf("tool ran: %v; %d rows, %d messages: want the call not run, nothing recorded", ran, len(res.Attempts), len(res.Messages))
			}
		})
	}
}

func TestAStreamedReplyWithoutAContractIsBounded(t *testing.T) {
	const chunk = 1 << 16
	huge := strings.Repeat("words ", enforce.MaxAnswerBytes/6+chunk)
	m := agenttest.NewStreamingModel(t, agenttest.Reply(huge).InChunks(chunk))
	res, err := agent.New(m).Run(t.Context(), "?")
	if !errors.Is(err, agent.ErrModel) {
		t.Errorf("err = %v, want an ErrModel", err)
	}
	stoppedAtBound(t, m.Consumed()[0], enforce.MaxAnswerBytes, chunk)
	if res.Output != "" {
		t.Errorf("Output holds %d bytes, want none: a cut reply is no answer", len(res.Output))
	}
}
