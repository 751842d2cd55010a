package agent_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

// doomedCall is an output tool's arguments the contract dooms where the
// number given for city ends.
const (
	doomedCall = `{"city":42,"tempC":21}`
	doomedRead = `{"city":42,`
)

// answerCall returns the reply's call of the output tool in msg, and the
// index of msg in the conversation.
func answerCall(t *testing.T, msgs []agent.Message) (agent.ToolCall, int) {
	t.Helper()
	i := slices.IndexFunc(msgs, func(m agent.Message) bool { return m.Role == agent.RoleAssistant })
	if i < 0 {
		t.Fatalf("no reply in %+v", msgs)
	}
	j := slices.IndexFunc(msgs[i].ToolCalls, func(c agent.ToolCall) bool { return c.Name == answerTool })
	if j < 0 {
		t.Fatalf("reply %+v: no call of %q", msgs[i], answerTool)
	}
	return msgs[i].ToolCalls[j], i
}

func TestEarlyAbortOfAnOutputToolCall(t *testing.T) {
	ran := false
	lookup := agent.NewTool("lookup", "looks up a city", func(context.Context, struct {
		City string `json:"city"`
	}) (string, error) {
		ran = true
		return "sunny", nil
	})
	tests := []struct {
		name  string
		opts  []agent.Option
		calls []agent.ToolCall // the first reply's, in order
	}{
		{"the call alone", nil, []agent.ToolCall{agenttest.Call("c1", answerTool, doomedCall)}},
		{"with other tools offered", []agent.Option{agent.WithTools(lookup)},
			[]agent.ToolCall{agenttest.Call("c1", answerTool, doomedCall)}},
		{"after another tool's call in the same reply", []agent.Option{agent.WithTools(lookup)},
			[]agent.ToolCall{agenttest.Call("c0", "lookup", `{"city":"Paris"}`), agenttest.Call("c1", answerTool, doomedCall)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ran = false
			opts := append([]agent.Option{agent.WithOutputTool(answerTool), agent.WithOutputRetries(2)}, tt.opts...)
			res, err, m := cutRun(t, opts,
				agenttest.CallTools(tt.calls...).InChunks(1),
				agenttest.CallTools(agenttest.Call("c2", answerTool, valid)).InChunks(4))
			if err != nil {
				t.Fatal(err)
			}
			c := m.Consumed()[0]
			// InChunks(1): one chunk per byte of each call's arguments, the
			// first with the call's name.
			read := len(doomedRead)
			if len(tt.calls) == 2 {
				read += len(tt.calls[0].Arguments)
			}
			if c.Chunks != read || !c.Stopped || !c.Cancelled {
				t.Errorf("consumed %+v, want %d chunks, stopped and cancelled", c, read)
			}
			r := res.Attempts[0]
			if r.Outcome != enforce.OutcomeRetried || r.Stage != enforce.StageSchemaValidate || r.Path != "/city" {
				t.Errorf("row 1 = %+v, want retried at schema-validate /city", r)
			}
			if r.Cut == nil || r.Cut.Bytes != len(doomedRead) {
				t.Errorf("row 1 Cut = %+v, want %d bytes", r.Cut, len(doomedRead))
			}
			if len(res.Attempts) != 2 || res.Attempts[1].Outcome != enforce.OutcomePassed || res.Attempts[1].Cut != nil {
				t.Errorf("rows = %+v, want a second that passed, whole", res.Attempts)
			}
			if ran {
				t.Error("the other call of the cut reply ran")
			}
			// The conversation keeps the call cut at the dooming byte, then a
			// tool message for each call: the correction for the answer's,
			// "not run" for the other.
			call, i := answerCall(t, res.Messages)
			if string(call.Arguments) != doomedRead {
				t.Errorf("the cut call's arguments are %q, want %q", call.Arguments, doomedRead)
			}
			req := m.Requests()[1].Messages
			if !slices.EqualFunc(req[i:i+1+len(tt.calls)], res.Messages[i:i+1+len(tt.calls)], func(a, b agent.Message) bool {
				return a.Content == b.Content && a.ToolCallID == b.ToolCallID
			}) {
				t.Errorf("the request after the cut does not carry the cut reply and its tool messages")
			}
			for k, tc := range res.Messages[i].ToolCalls {
				tm := res.Messages[i+1+k]
				switch {
				case tm.Role != agent.RoleTool || tm.ToolCallID != tc.ID:
					t.Errorf("message %d = %+v, want the tool message for call %s", i+1+k, tm, tc.ID)
				case tc.Name == answerTool && !strings.Contains(tm.Content, "stopped reading your previous answer"):
					t.Errorf("the answer's tool message is %q, want the correction saying it was stopped", tm.Content)
				case tc.Name != answerTool && !strings.HasPrefix(tm.Content, "not run"):
					t.Errorf("the other call's tool message is %q, want it not run", tm.Content)
				}
			}
		})
	}

	notCut := []struct {
		name  string
		opts  []agent.Option
		first agenttest.Step
		again bool // a second reply follows
	}{
		{"nothing is cut without retries", nil, agenttest.CallTools(agenttest.Call("c1", answerTool, doomedCall)).InChunks(1), false},
		{"nothing is cut with no retry left", []agent.Option{agent.WithOutputRetries(0)},
			agenttest.CallTools(agenttest.Call("c1", answerTool, doomedCall)).InChunks(1), false},
		{"nothing is cut when opted out", []agent.Option{agent.WithOutputRetries(2), agent.WithEarlyAbort(false)},
			agenttest.CallTools(agenttest.Call("c1", answerTool, doomedCall)).InChunks(1), true},
		{"nothing is cut on the last iteration", []agent.Option{agent.WithOutputRetries(2), agent.WithMaxIterations(1)},
			agenttest.CallTools(agenttest.Call("c1", answerTool, doomedCall)).InChunks(1), false},
		{"nothing is cut when an output step might mend the answer",
			[]agent.Option{agent.WithOutputRetries(2), agent.WithMiddleware(output("quote", func(_ context.Context, s string) (string, error) {
				return strings.Replace(s, `"city":42`, `"city":"42"`, 1), nil
			}))},
			agenttest.CallTools(agenttest.Call("c1", answerTool, doomedCall)).InChunks(1), false},
		{"a reply in prose instead of the call is judged at its end", []agent.Option{agent.WithOutputRetries(2)},
			agenttest.Reply(prose).InChunks(1), true},
		// (A call of another tool its own parameters doom is cut as a
		// call: TestEarlyAbortOfAToolCall.)
		{"another tool's call is not the answer", []agent.Option{agent.WithOutputRetries(2), agent.WithTools(lookup)},
			agenttest.CallTools(agenttest.Call("c0", "lookup", `{"city":"Paris"}`)).InChunks(1), true},
	}
	for _, tt := range notCut {
		t.Run(tt.name, func(t *testing.T) {
			opts := append([]agent.Option{agent.WithOutputTool(answerTool)}, tt.opts...)
			steps := []agenttest.Step{tt.first}
			if tt.again {
				steps = append(steps, agenttest.CallTools(agenttest.Call("c2", answerTool, valid)))
			}
			res, _, m := cutRun(t, opts, steps...)
			if c := m.Consumed()[0]; c.Stopped || c.Chunks != c.TotalChunks {
				t.Errorf("consumed %+v, want all of it", c)
			}
			for _, r := range res.Attempts {
				if r.Cut != nil {
					t.Errorf("row %+v is cut", r)
				}
			}
		})
	}
}

func TestRunTypedStreamShowsTheOutputToolsArguments(t *testing.T) {
	m := agenttest.NewStreamingModel(t,
		// Text before the call is no answer: it shows nothing. Days
		// missing: the answer fails at its end.
		agenttest.Chunks(agent.Chunk{Text: `{"city":"Oslo","stops":[],"days":1}`},
			agent.Chunk{Call: &agent.CallDelta{Index: 0, ID: "c1", Name: answerTool, Arguments: `{"city":"Ro`}},
			agent.Chunk{Call: &agent.CallDelta{Index: 0, Arguments: `me","stops":[]`}},
			agent.Chunk{Call: &agent.CallDelta{Index: 0, Arguments: `}`}}),
		// Cut where days turns out a string.
		agenttest.CallTools(agenttest.Call("c2", answerTool, `{"city":"Lyon","days":"three"}`)).InChunks(6),
		agenttest.CallTools(agenttest.Call("c3", answerTool, trip)).InChunks(6),
	)
	s := agent.RunTypedStream[Trip](t.Context(), agent.New(m, agent.WithOutputTool(answerTool), agent.WithOutputRetries(2)), "Plan a trip")
	ps := collect(s)
	var cities []string
	for i, p := range ps {
		if p.Value.City == "Oslo" {
			t.Errorf("partial %d = %+v shows the reply's text, not the call's arguments", i, p)
		}
		if want := i > 0 && p.Attempt != ps[i-1].Attempt; p.Restart != want {
			t.Errorf("partial %d = %+v: Restart %v, want %v (a restart exactly where the attempt changes)", i, p, p.Restart, want)
		}
		for len(cities) < p.Attempt {
			cities = append(cities, "")
		}
		if p.Value.City != "" {
			cities[p.Attempt-1] = p.Value.City
		}
	}
	if want := []string{"Rome", "Lyon", "Paris"}; !slices.Equal(cities, want) {
		t.Errorf("the attempts' partials show %q, want %q", cities, want)
	}
	if c := m.Consumed()[1]; !c.Stopped || !c.Cancelled {
		t.Errorf("the second reply: consumed %+v, want it cut", c)
	}
	v, res, err := s.Result()
	if err != nil || v.City != "Paris" || len(res.Attempts) != 3 || res.Attempts[1].Cut == nil {
		t.Errorf("Result = %+v, %+v, %v; want Paris after a failed row and a cut one", v, res.Attempts, err)
	}
}

// A call named only in a later chunk may turn out to be the output tool's
// first call: until every call before it is named, a call is not judged
// as the answer.
func TestACallIsJudgedAsTheAnswerOnlyOnceNoEarlierCallCanBeIt(t *testing.T) {
	res, err, m := cutRun(t, []agent.Option{agent.WithOutputTool(answerTool), agent.WithOutputRetries(2)},
		agenttest.Chunks(
			agent.Chunk{Call: &agent.CallDelta{Index: 0, ID: "c0"}},
			agent.Chunk{Call: &agent.CallDelta{Index: 1, ID: "c1", Name: answerTool, Arguments: doomedCall[:8]}},
			agent.Chunk{Call: &agent.CallDelta{Index: 1, Arguments: doomedCall[8:]}},
			agent.Chunk{Call: &agent.CallDelta{Index: 0, Name: answerTool, Arguments: valid}}))
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Consumed()[0]; c.Stopped {
		t.Errorf("consumed %+v, want all of it: call 0 became the answer", c)
	}
	if len(res.Attempts) != 1 || res.Attempts[0].Outcome != enforce.OutcomePassed || res.Output != valid {
		t.Errorf("rows = %+v, output %q; want call 0's arguments, passed", res.Attempts, res.Output)
	}
}
