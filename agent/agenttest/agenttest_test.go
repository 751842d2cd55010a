package agenttest_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
)

// fakeTB records what a Model reports instead of failing the real test.
// Methods the Model should not call are left to the nil embedded TB and
// panic.
type fakeTB struct {
	testing.TB
	mu       sync.Mutex
	errors   []string
	cleanups []func()
	helper   bool // Helper was called since the last Errorf
	unhelped int  // reports made without Helper: they would point into agenttest
}

func (f *fakeTB) Helper() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.helper = true
}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
	if !f.helper {
		f.unhelped++
	}
	f.helper = false
}

func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }

// finish runs the cleanups, last registered first, as testing does.
func (f *fakeTB) finish() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

func (f *fakeTB) reported() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.errors)
}

func request(text string) agent.Request {
	return agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: text}}}
}

func TestModelReportsItsScript(t *testing.T) {
	tests := []struct {
		name     string
		steps    int
		requests int
		before   int // errors reported on the TB before cleanup
		want     int // and after
	}{
		{"a script used exactly reports nothing", 2, 2, 0, 0},
		{"a request after the last step is reported at once", 1, 2, 1, 1},
		{"steps left unused are reported at cleanup", 3, 1, 0, 1},
		{"an empty script that is never called reports nothing", 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := &fakeTB{}
			var steps []agenttest.Step
			for i := range tt.steps {
				steps = append(steps, agenttest.Reply(fmt.Sprint("answer ", i)))
			}
			m := agenttest.NewModel(tb, steps...)
			for i := range tt.requests {
				_, err := m.Generate(t.Context(), request(fmt.Sprint("q", i)))
				if exhausted := i >= tt.steps; exhausted != errors.Is(err, agenttest.ErrScriptExhausted) {
					t.Errorf("request %d: err = %v, want ErrScriptExhausted exactly when the script ran out", i+1, err)
				}
			}
			if got := tb.reported(); got != tt.before {
				t.Errorf("errors reported before cleanup = %d (%q), want %d", got, tb.errors, tt.before)
			}
			tb.finish()
			if got := tb.reported(); got != tt.want {
				t.Errorf("errors reported = %d (%q), want %d", got, tb.errors, tt.want)
			}
		})
	}
}

func TestModelRepliesInOrder(t *testing.T) {
	modelErr := errors.New("overloaded")
	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("c1", "lookup", `{"city":"Paris"}`)).WithUsage(3, 4),
		agenttest.Fail(modelErr).WithUsage(5, 0),
		agenttest.Reply("done"),
	)

	resp, err := m.Generate(t.Context(), request("one"))
	if err != nil {
		t.Fatal(err)
	}
	want := agent.Response{
		Message: agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{agenttest.Call("c1", "lookup", `{"city":"Paris"}`)}},
		Usage:   agent.Usage{InputTokens: 3, OutputTokens: 4},
		Stop:    agent.StopToolUse, StopRaw: "tool_use",
	}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("first reply = %+v, want %+v", resp, want)
	}

	resp, err = m.Generate(t.Context(), request("two"))
	if !errors.Is(err, modelErr) {
		t.Errorf("second reply err = %v, want the scripted error", err)
	}
	if got, want := resp.Usage, (agent.Usage{InputTokens: 5}); got != want {
		t.Errorf("second reply usage = %+v, want %+v", got, want)
	}

	resp, err = m.Generate(t.Context(), request("three"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resp.Message, (agent.Message{Role: agent.RoleAssistant, Content: "done"}); !reflect.DeepEqual(got, want) {
		t.Errorf("third reply = %+v, want %+v", got, want)
	}
	if got, want := resp.Stop, agent.StopComplete; got != want {
		t.Errorf("third reply Stop = %q, want %q", got, want)
	}

	if got, want := m.Calls(), 3; got != want {
		t.Errorf("Calls = %d, want %d", got, want)
	}
	var got []string
	for _, r := range m.Requests() {
		got = append(got, r.Messages[0].Content)
	}
	if want := []string{"one", "two", "three"}; !reflect.DeepEqual(got, want) {
		t.Errorf("requests = %q, want %q", got, want)
	}
}

func TestModelKeepsCopiesOfRequests(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply("ok"))
	req := request("original")
	if _, err := m.Generate(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	req.Messages[0].Content = "changed by the caller"
	if got, want := m.Requests()[0].Messages[0].Content, "original"; got != want {
		t.Errorf("recorded request = %q, want %q", got, want)
	}
}

func TestModelDrivesAnAgent(t *testing.T) {
	t.Run("an agent run past the script fails with ErrScriptExhausted", func(t *testing.T) {
		tb := &fakeTB{}
		m := agenttest.NewModel(tb, agenttest.CallTools(agenttest.Call("c1", "unknown", `{}`)))
		_, err := agent.New(m).Run(context.Background(), "hi")
		if !errors.Is(err, agenttest.ErrScriptExhausted) || !errors.Is(err, agent.ErrModel) {
			t.Errorf("err = %v, want one matching ErrScriptExhausted and agent.ErrModel", err)
		}
		tb.finish()
		if got, want := tb.reported(), 1; got != want {
			t.Errorf("errors reported = %d, want %d", got, want)
		}
	})
}

func TestModelReportsAtTheCallersLineInWords(t *testing.T) {
	tests := []struct {
		name     string
		steps    int
		requests int
		want     string
	}{
		{"one request too many after one step", 1, 2, "agenttest: request 2 arrived after the script's 1 step (the model made at agenttest_test.go:"},
		{"one request too many after two steps", 2, 3, "agenttest: request 3 arrived after the script's 2 steps (the model made at agenttest_test.go:"},
		{"one step of one left", 1, 0, "agenttest: 1 of 1 scripted step left unused"},
		{"two steps of three left", 3, 1, "agenttest: 2 of 3 scripted steps left unused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := &fakeTB{}
			var steps []agenttest.Step
			for range tt.steps {
				steps = append(steps, agenttest.Reply("ok"))
			}
			tb.helper = false // NewModel's own Helper call does not count
			m := agenttest.NewModel(tb, steps...)
			tb.helper = false
			for i := range tt.requests {
				_, _ = m.Generate(t.Context(), request(fmt.Sprint("q", i)))
			}
			tb.finish()
			if len(tb.errors) != 1 || !strings.HasPrefix(tb.errors[0], tt.want) {
				t.Errorf("reported %q, want one report starting %q", tb.errors, tt.want)
			}
			if tb.unhelped != 0 {
				t.Errorf("%d reports made without t.Helper, so they point into agenttest", tb.unhelped)
			}
		})
	}
}

func TestWithStopScriptsWhyTheReplyEnded(t *testing.T) {
	m := agenttest.NewModel(t,
		agenttest.Reply(`{"city": "Pa`).WithStop(agent.StopLength),
		agenttest.Reply("I can't help with that.").WithStop(agent.StopRefusal),
	)
	for _, want := range []agent.StopReason{agent.StopLength, agent.StopRefusal} {
		resp, err := m.Generate(t.Context(), request("q"))
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Stop; got != want {
			t.Errorf("Stop = %q, want %q", got, want)
		}
		if got, want := resp.StopRaw, string(want); got != want {
			t.Errorf("StopRaw = %q, want %q", got, want)
		}
	}
}
