package agent_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/events"
)

func TestAProviderErrorSaysItsCause(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	tests := []struct {
		name string
		pe   *agent.ProviderError
		want string
	}{
		{"the provider's message when there is one",
			&agent.ProviderError{System: "openai", Kind: events.KindBadRequest, HTTPStatus: 400, Message: "no such model", Err: errors.New("sdk: 400")},
			"agent: provider openai: bad_request (HTTP 400): no such model"},
		{"the cause when there is no message",
			&agent.ProviderError{System: "openai", Kind: events.KindConnection, Err: dial},
			"agent: provider openai: connection: " + dial.Error()},
		{"the kind alone when there is neither",
			&agent.ProviderError{Kind: events.KindUnknown},
			"agent: provider: unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := tt.pe.Error(), tt.want; got != want {
				t.Errorf("Error() = %q, want %q", got, want)
			}
		})
	}
}

func TestTheCauseOfAProviderErrorStaysOffTheStream(t *testing.T) {
	s := newStream(t)
	secret := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("lookup internal-gateway.corp: no such host")}
	m := agenttest.NewModel(t, agenttest.Fail(&agent.ProviderError{System: "openai", Kind: events.KindConnection, Err: secret}),
		agenttest.Fail(&agent.ProviderError{System: "openai", Kind: events.KindConnection, Err: secret}))
	a := agent.New(m, agent.WithEvents(s), agent.WithModelRetry(agent.RetryPolicy{MaxAttempts: 2, Backoff: zeroDelay}))
	_, err := a.Run(context.Background(), "hi")
	if !errors.Is(err, secret) {
		t.Fatalf("err = %v, want it to wrap the dial error", err)
	}
	_, ns := methods(t, s)
	if len(ns) != 3 {
		t.Fatalf("recorded %d notifications, want 3", len(ns))
	}
	for _, n := range ns {
		if strings.Contains(string(n.Params), "internal-gateway") {
			t.Errorf("%s carries the provider's cause: %s", n.Method, n.Params)
		}
	}
}

// Retryable follows the session stream's one rule: the kind must be
// retryable, and a client error's status must be one whose kind is.
func TestProviderErrorRetryableFollowsTheStreamsRule(t *testing.T) {
	tests := []struct {
		kind   events.ErrorKind
		status int
		want   bool
	}{
		{events.KindRateLimit, 429, true},
		{events.KindTimeout, 408, true},
		{events.KindServerError, 503, true},
		{events.KindConnection, 0, true},
		{events.KindOverloaded, 400, false}, // a body that says overloaded on a bad request
		{events.KindServerError, 409, false},
		{events.KindRateLimit, 403, false},
		{events.KindBadRequest, 0, false},
		{events.KindUnknown, 500, false},
	}
	for _, tt := range tests {
		e := &agent.ProviderError{System: "test", Kind: tt.kind, HTTPStatus: tt.status}
		if got := e.Retryable(); got != tt.want {
			t.Errorf("Retryable(%s, %d) = %v, want %v", tt.kind, tt.status, got, tt.want)
		}
	}
}
