package agent_test

import (
	"context"
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
