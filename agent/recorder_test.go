package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/events"
)

func TestTheProvidersMessageStaysOffTheStream(t *testing.T) {
	s := newStream(t)
	secret := "internal: key sk-123 for org-xyz"
	m := agenttest.NewModel(t, agenttest.Fail(&agent.ProviderError{System: "openai",
		Kind: events.KindBadRequest, HTTPStatus: 400, Message: secret}))
	if _, err := agent.New(m, agent.WithEvents(s)).Run(context.Background(), "hi"); err == nil {
		t.Fatal("err = nil")
	}
	_, ns := methods(t, s)
	last := ns[len(ns)-1]
	if containsJSON(last.Params, "sk-123") || !containsJSON(last.Params, `"kind":"modelError"`) {
		t.Errorf("turn/completed = %s, want a modelError without the provider's message", last.Params)
	}
}

type panickyRecorder struct{}

func (panickyRecorder) Append(events.Event) (events.Notification, error) { panic("disk on fire") }

func TestAPanickingRecorderDoesNotCrashTheRun(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply("ok"))
	res, err := agent.New(m, agent.WithEvents(panickyRecorder{})).Run(context.Background(), "hi")
	if err != nil || res.Output != "ok" {
		t.Errorf("Run = %q, %v; want ok", res.Output, err)
	}
}

// turnUsage waits for the turn's terminal, which must already be recorded,
// and returns it with its usage.
func turnUsage(t *testing.T, s *events.Stream, turn string) (events.Notification, *agent.Usage) {
	t.Helper()
	done, cancel := context.WithCancel(context.Background())
	cancel() // the terminal is recorded before Run returns: no waiting
	n, err := s.WaitTurn(done, turn)
	if err != nil {
		t.Fatalf("WaitTurn = %v, want turn/completed already recorded", err)
	}
	var p struct {
		Usage *agent.Usage `json:"usage"`
	}
	if err := json.Unmarshal(n.Params, &p); err != nil {
		t.Fatal(err)
	}
	return n, p.Usage
}

func TestHostileTokenCountsStillCompleteTheTurn(t *testing.T) {
	echo := agent.Tool{Name: "echo", Run: func(context.Context, json.RawMessage) (string, error) { return "ok", nil }}
	tests := []struct {
		name  string
		steps []agenttest.Step
		want  agent.Usage
	}{
		{"counts past math.MaxInt saturate",
			[]agenttest.Step{
				agenttest.CallTools(agenttest.Call("", "echo", `{}`)).WithUsage(math.MaxInt, 1),
				agenttest.Reply("ok").WithUsage(math.MaxInt, 1)},
			agent.Usage{InputTokens: math.MaxInt, OutputTokens: 2}},
		{"a negative count is unknown and adds nothing",
			[]agenttest.Step{
				agenttest.CallTools(agenttest.Call("", "echo", `{}`)).WithUsage(-5, 3),
				agenttest.Reply("ok").WithUsage(7, math.MinInt)},
			agent.Usage{InputTokens: 7, OutputTokens: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStream(t)
			a := agent.New(agenttest.NewModel(t, tt.steps...), agent.WithEvents(s), agent.WithTools(echo))
			res, err := a.Run(context.Background(), "hi")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := res.Usage, tt.want; got != want {
				t.Errorf("Result.Usage = %+v, want %+v", got, want)
			}
			// The wire's usage needs cached and reasoning tokens, which
			// these calls did not report: the terminal carries no usage,
			// and is recorded whatever the model reported.
			n, usage := turnUsage(t, s, res.TurnID)
			if n.Method != "turn/completed" || usage != nil {
				t.Errorf("terminal = %s %s, want turn/completed without usage", n.Method, n.Params)
			}
		})
	}
}

func TestTurnCompletedCarriesTheTurnsUsage(t *testing.T) {
	echo := agent.Tool{Name: "echo", Run: func(context.Context, json.RawMessage) (string, error) { return "ok", nil }}
	tests := []struct {
		name  string
		steps []agenttest.Step
		want  *agent.Usage // nil: no usage on the wire
	}{
		{"every call reported its four counts: their sums",
			[]agenttest.Step{
				agenttest.CallTools(agenttest.Call("", "echo", `{}`)).WithDetailedUsage(10, 5, 4, 1),
				agenttest.Reply("ok").WithDetailedUsage(20, 8, 12, 0)},
			&agent.Usage{InputTokens: 30, OutputTokens: 13, CachedTokens: 16, ReasoningTokens: 1}},
		{"measured zeros are sent as zeros",
			[]agenttest.Step{agenttest.Reply("ok").WithDetailedUsage(0, 0, 0, 0)},
			&agent.Usage{}},
		{"a failed turn carries what its calls reported",
			[]agenttest.Step{
				agenttest.CallTools(agenttest.Call("", "echo", `{}`)).WithDetailedUsage(10, 5, 4, 1),
				agenttest.Fail(errors.New("overloaded"))},
			&agent.Usage{InputTokens: 10, OutputTokens: 5, CachedTokens: 4, ReasoningTokens: 1}},
		{"one call without cached and reasoning counts: no usage",
			[]agenttest.Step{
				agenttest.CallTools(agenttest.Call("", "echo", `{}`)).WithDetailedUsage(10, 5, 4, 1),
				agenttest.Reply("ok").WithUsage(20, 8)},
			nil},
		{"the first call without them: no usage",
			[]agenttest.Step{
				agenttest.CallTools(agenttest.Call("", "echo", `{}`)).WithUsage(20, 8),
				agenttest.Reply("ok").WithDetailedUsage(10, 5, 4, 1)},
			nil},
		{"a negative count is unknown: no usage",
			[]agenttest.Step{
				agenttest.CallTools(agenttest.Call("", "echo", `{}`)).WithDetailedUsage(-5, 3, 0, 0),
				agenttest.Reply("ok").WithDetailedUsage(10, 5, 4, 1)},
			nil},
		{"streamed, the counts the chunks reported",
			[]agenttest.Step{
				agenttest.Chunks(agent.Chunk{Usage: agent.Usage{InputTokens: 10, CachedTokens: 4, Detailed: true}}, agent.Chunk{Text: "o"},
					agent.Chunk{Text: "k", Usage: agent.Usage{OutputTokens: 5, ReasoningTokens: 2}}, agent.Chunk{Stop: agent.StopComplete})},
			&agent.Usage{InputTokens: 10, OutputTokens: 5, CachedTokens: 4, ReasoningTokens: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStream(t)
			a := agent.New(agenttest.NewStreamingModel(t, tt.steps...), agent.WithEvents(s), agent.WithTools(echo))
			res, _ := a.Run(context.Background(), "hi")
			n, got := turnUsage(t, s, res.TurnID)
			if n.Method != "turn/completed" {
				t.Fatalf("terminal = %s, want turn/completed", n.Method)
			}
			switch {
			case tt.want == nil && got != nil:
				t.Errorf("usage = %+v, want none: %s", *got, n.Params)
			case tt.want != nil && got == nil:
				t.Errorf("usage absent, want %+v: %s", *tt.want, n.Params)
			case tt.want != nil && *got != *tt.want:
				t.Errorf("usage = %+v, want %+v", *got, *tt.want)
			}
			if got, want := res.Usage.Detailed, tt.want != nil; got != want {
				t.Errorf("Result.Usage.Detailed = %v, want %v", got, want)
			}
		})
	}
}

// refusingRecorder records on a stream, but refuses the first
// turn/completed, as a stream refuses an event it cannot send.
type refusingRecorder struct {
	s       *events.Stream
	refused *bool
}

func (r refusingRecorder) Append(ev events.Event) (events.Notification, error) {
	if _, ok := ev.(events.TurnCompleted); ok && !*r.refused {
		*r.refused = true
		return events.Notification{}, fmt.Errorf("refused: %w", events.ErrInvalid)
	}
	return r.s.Append(ev)
}

func TestARefusedTerminalIsRecordedAgain(t *testing.T) {
	tests := []struct {
		name  string
		steps []agenttest.Step
		want  string // the terminal's JSON members
	}{
		{"a completed turn", []agenttest.Step{agenttest.Reply("ok")}, `"terminal":"completed"`},
		{"a failed turn keeps its error kind, in our words", []agenttest.Step{agenttest.Reply("")}, `"terminal":"failed","error":{"kind":"modelError","message":"the turn failed; its error could not be recorded"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStream(t)
			a := agent.New(agenttest.NewModel(t, tt.steps...), agent.WithEvents(refusingRecorder{s, new(bool)}))
			res, _ := a.Run(context.Background(), "hi")
			n, usage := turnUsage(t, s, res.TurnID)
			if n.Method != "turn/completed" || usage != nil || !containsJSON(n.Params, tt.want) {
				t.Errorf("terminal = %s %s, want turn/completed with %s and no usage", n.Method, n.Params, tt.want)
			}
		})
	}
}

func TestATurnIDTheStreamRefusesStopsTheRunBeforeTheModel(t *testing.T) {
	tests := []struct {
		name string
		id   string
	}{
		{"a newline", "turn\n1"},
		{"over 256 bytes", strings.Repeat("t", 257)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStream(t)
			m := agenttest.NewModel(t) // no steps: a call fails the test
			res, err := agent.New(m, agent.WithEvents(s)).Run(agent.ContextWithTurnID(context.Background(), tt.id), "hi")
			if !errors.Is(err, events.ErrInvalid) {
				t.Errorf("err = %v, want events.ErrInvalid", err)
			}
			if res == nil || res.TurnID != tt.id {
				t.Errorf("Result = %+v, want one naming the turn", res)
			}
			// A probe ends the read: what precedes it was recorded by the run.
			if _, err := s.Append(events.TurnCompleted{TurnID: "probe", Terminal: "completed"}); err != nil {
				t.Fatal(err)
			}
			if got, _ := methods(t, s); !slices.Equal(got, []string{"turn/completed"}) {
				t.Errorf("recorded %v, want nothing before the probe's turn/completed", got)
			}
		})
	}
}

// unreachableLog refuses the appends of turn/completed records with
// ErrUnavailable while down, storing nothing, as a log electing its
// leader does.
type unreachableLog struct {
	events.Log
	down atomic.Bool
}

func (l *unreachableLog) Append(rec events.Record) error {
	if _, ok := rec.Event.(events.TurnCompleted); ok && l.down.Load() {
		return &events.Error{Op: "append", Seq: rec.Sequence, Err: events.ErrUnavailable}
	}
	return l.Log.Append(rec)
}

// A terminal the stream kept for an unavailable log is not recorded a
// second time by the agent: once the log answers, the turn has one
// turn/completed, the run's own.
func TestATerminalKeptForAnUnavailableLogIsRecordedOnce(t *testing.T) {
	l := &unreachableLog{Log: events.NewMemoryLog()}
	l.down.Store(true)
	s, err := events.NewStream("s1", l)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a := agent.New(agenttest.NewModel(t, agenttest.Reply("ok")), agent.WithEvents(s))
	if _, err := a.Run(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	l.down.Store(false)
	if _, err := s.Append(events.TurnStarted{TurnID: "next"}); err != nil {
		t.Fatal(err)
	}
	terminals := 0
	for rec, err := range l.Records(0) {
		if err != nil {
			t.Fatal(err)
		}
		if ev, ok := rec.Event.(events.TurnCompleted); ok {
			terminals++
			if ev.Usage == nil && ev.Error == nil && terminals > 1 {
				t.Errorf("record %d is a second, least terminal of the turn", rec.Sequence)
			}
		}
	}
	if terminals != 1 {
		t.Errorf("the log holds %d turn/completed records, want 1", terminals)
	}
}
