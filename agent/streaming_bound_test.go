package agent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/middleware"
)

// A streamed answer is read no further than the byte past the contract's
// answer size bound when nothing can follow or change it; every reply,
// its text and all its tool calls' arguments together, no further than
// the larger of that bound and enforce.MaxAnswerBytes: a model that
// writes without end costs bounded memory, whatever the run offers it.
// Within those bounds a streamed reply reads as Generate would give it.

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

func TestAStreamedAnswerIsCutAtTheAnswersBound(t *testing.T) {
	schema := weatherSchema(t).WithMaxAnswerBytes(replyBound)
	m := agenttest.NewStreamingModel(t, agenttest.Reply(hugeAnswer).InChunks(16), agenttest.Reply(valid))
	a := agent.New(m, agent.WithOutputSchema(schema), agent.WithOutputRetries(1), agent.WithEarlyAbort(false))

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

// With tools offered, or a step that may shorten it, text past the
// answer's bound may still be followed by a tool call or made to fit: it
// is read whole, as Generate gives it, and judged at its end.
func TestAStreamedAnswerThatMayYetChangeIsReadWhole(t *testing.T) {
	schema := weatherSchema(t).WithMaxAnswerBytes(replyBound)
	lookup := agent.NewTool("lookup", "", func(context.Context, struct{}) (string, error) { return "", nil })
	shorten := middleware.Middleware{Name: "shorten", Output: func(_ context.Context, s string) (string, error) {
		if len(s) > replyBound {
			return valid, nil
		}
		return s, nil
	}}
	t.Run("tools offered", func(t *testing.T) {
		m := agenttest.NewStreamingModel(t, agenttest.Reply(hugeAnswer).InChunks(16), agenttest.Reply(valid))
		res, err := agent.New(m, agent.WithOutputSchema(schema), agent.WithOutputRetries(1), agent.WithTools(lookup)).Run(t.Context(), "?")
		if err != nil {
			t.Fatal(err)
		}
		if c := m.Consumed()[0]; c.Stopped || c.Bytes != len(hugeAnswer) {
			t.Errorf("consumed %+v, want all %d bytes", c, len(hugeAnswer))
		}
		if len(res.Attempts) != 2 || res.Attempts[0].Cut != nil || res.Attempts[0].Error != checkError(t, schema, hugeAnswer).Issues[0].Message {
			t.Errorf("rows = %+v, want the whole answer judged too long, uncut, then a pass", res.Attempts)
		}
	})
	t.Run("a step that shortens it", func(t *testing.T) {
		m := agenttest.NewStreamingModel(t, agenttest.Reply(hugeAnswer).InChunks(16))
		res, err := agent.New(m, agent.WithOutputSchema(schema), agent.WithOutputRetries(1), agent.WithMiddleware(shorten)).Run(t.Context(), "?")
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Attempts) != 1 || res.Attempts[0].Outcome != enforce.OutcomePassed || res.Output != valid {
			t.Errorf("rows = %+v, output %q: want the shortened answer passed", res.Attempts, res.Output)
		}
	})
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

// A tool call's arguments are no answer: past the answer's bound they are
// read on, and the tool runs, as through Generate; past the reply's bound
// the call fails and no tool runs, whether one call grows without end or
// the model starts calls without end.
func TestAStreamedToolCallPastTheReplysBoundFailsTheModelCall(t *testing.T) {
	const chunk = 1 << 16
	past := `{"Q":"` + strings.Repeat("x", enforce.MaxAnswerBytes) + `"}`
	var ran atomic.Int64
	lookup := agent.NewTool("lookup", "", func(context.Context, struct{ Q string }) (string, error) {
		ran.Add(1)
		return "", nil
	})
	opts := []agent.Option{agent.WithOutputSchema(weatherSchema(t).WithMaxAnswerBytes(replyBound)), agent.WithOutputRetries(1), agent.WithTools(lookup)}

	t.Run("within it the tool runs", func(t *testing.T) {
		ran.Store(0)
		within := `{"Q":"` + strings.Repeat("x", 10_000) + `"}`
		m := agenttest.NewStreamingModel(t, agenttest.CallTools(agenttest.Call("c1", "lookup", within)).InChunks(16), agenttest.Reply(valid))
		res, err := agent.New(m, opts...).Run(t.Context(), "?")
		if err != nil {
			t.Fatal(err)
		}
		if ran.Load() != 1 {
			t.Errorf("the tool ran %d times, want once; messages %+v", ran.Load(), res.Messages[3:])
		}
	})
	many := make([]agent.ToolCall, 0, 80)
	for i := range cap(many) {
		many = append(many, agenttest.Call(fmt.Sprint("c", i), "lookup", `{"Q":"`+strings.Repeat("y", chunk-8)+`"}`))
	}
	for name, step := range map[string]agenttest.Step{
		"one call":   agenttest.CallTools(agenttest.Call("c1", "lookup", past)).InChunks(chunk),
		"many calls": agenttest.CallTools(many...).InChunks(chunk),
	} {
		t.Run(name, func(t *testing.T) {
			ran.Store(0)
			m := agenttest.NewStreamingModel(t, step)
			res, err := agent.New(m, opts...).Run(t.Context(), "?")
			if !errors.Is(err, agent.ErrModel) {
				t.Errorf("err = %v, want an ErrModel", err)
			}
			stoppedAtBound(t, m.Consumed()[0], enforce.MaxAnswerBytes, chunk)
			if ran.Load() != 0 || len(res.Attempts) != 0 || len(res.Messages) != 2 {
				t.Errorf("tool ran %d times; %d rows, %d messages: want the call not run, nothing recorded", ran.Load(), len(res.Attempts), len(res.Messages))
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

// A model that begins tool calls without end, even empty ones, is stopped
// at the reply's bound: each call begun counts toward it.
func TestAStreamedReplyBeginningCallsWithoutEndIsBounded(t *testing.T) {
	n := enforce.MaxAnswerBytes/64 + 100
	chunks := make([]agent.Chunk, n)
	for i := range chunks {
		chunks[i] = agent.Chunk{Call: &agent.CallDelta{Index: i}}
	}
	m := agenttest.NewStreamingModel(t, agenttest.Chunks(chunks...))
	_, err := agent.New(m).Run(t.Context(), "?")
	if !errors.Is(err, agent.ErrModel) {
		t.Errorf("err = %v, want an ErrModel", err)
	}
	if c := m.Consumed()[0]; !c.Stopped || !c.Cancelled || c.Chunks > enforce.MaxAnswerBytes/64+1 {
		t.Errorf("consumed %+v, want the stream stopped and cancelled by call %d", c, enforce.MaxAnswerBytes/64+1)
	}
}
