package agent_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/events"
)

// downLog refuses every append with ErrUnavailable while down, storing
// nothing: a shared log that stays away.
type downLog struct {
	events.Log
	down atomic.Bool
}

func (l *downLog) Append(rec events.Record) error {
	if l.down.Load() {
		return &events.Error{Op: "append", Seq: rec.Sequence, Err: events.ErrUnavailable}
	}
	return l.Log.Append(rec)
}

// A run that started while the log was away still ends in the log once it
// answers, however many other runs came and went meanwhile: those the
// stream could not keep take no place from its end.
func TestARunStartedDuringAnOutageEndsInTheLogAfterOthersOverflowIt(t *testing.T) {
	l := &downLog{Log: events.NewMemoryLog()}
	l.down.Store(true)
	s, err := events.NewStream("s1", l)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defer l.down.Store(false) // before Close, which waits for the log

	called, release := make(chan struct{}), make(chan struct{})
	slow := agent.New(agent.ModelFunc(func(ctx context.Context, _ agent.Request) (agent.Response, error) {
		close(called)
		<-release
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: "ok"}}, nil
	}), agent.WithEvents(s))
	ran := make(chan error, 1)
	go func() {
		_, err := slow.Run(agent.ContextWithTurnID(t.Context(), "long"), "hi")
		ran <- err
	}()
	<-called
	const others = 130 // their starts and ends fill every place the stream keeps
	steps := make([]agenttest.Step, others)
	for i := range steps {
		steps[i] = agenttest.Reply("ok")
	}
	quick := agent.New(agenttest.NewModel(t, steps...), agent.WithEvents(s))
	for i := range others {
		if _, err := quick.Run(agent.ContextWithTurnID(t.Context(), fmt.Sprintf("q%d", i)), "hi"); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	if err := <-ran; err != nil {
		t.Fatal(err)
	}

	l.down.Store(false)
	if _, err := s.Append(events.TurnStarted{TurnID: "after"}); err != nil { // stores the kept records first
		t.Fatalf("Append once the log answers = %v", err)
	}
	done, cancel := context.WithCancel(t.Context())
	cancel() // WaitTurn answers at once for a turn that ended
	if _, err := s.WaitTurn(done, "long"); err != nil {
		t.Errorf("WaitTurn(long) once the log answers = %v, want its turn/completed", err)
	}
}
