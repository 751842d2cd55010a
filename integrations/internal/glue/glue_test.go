package glue_test

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/integrations/internal/glue"
)

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestFailureIsClassifiedByTheErrorsShape(t *testing.T) {
	own := &agent.ProviderError{System: "openai", Kind: events.KindRateLimit, HTTPStatus: 429}
	tests := []struct {
		name       string
		err        error
		wantSystem string
		wantKind   events.ErrorKind
	}{
		{"an opaque error is of kind unknown", errors.New("boom"), "fw", events.KindUnknown},
		{"a timeout is of kind timeout", timeoutErr{}, "fw", events.KindTimeout},
		{"a deadline is of kind timeout", context.DeadlineExceeded, "fw", events.KindTimeout},
		{"a dial error is of kind connection", &net.OpError{Op: "dial", Err: errors.New("refused")}, "fw", events.KindConnection},
		{"a provider error is kept as it is", own, "openai", events.KindRateLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := glue.Failure(t.Context(), "fw", tt.err)
			var pe *agent.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("error = %v, want *agent.ProviderError", err)
			}
			if got, want := [2]any{pe.System, pe.Kind}, [2]any{tt.wantSystem, tt.wantKind}; got != want {
				t.Errorf("(system, kind) = %v, want %v", got, want)
			}
			if !errors.Is(err, tt.err) {
				t.Error("the failure does not unwrap to the framework's error")
			}
		})
	}
	t.Run("a done context yields its cause", func(t *testing.T) {
		cause := errors.New("gave up")
		ctx, cancel := context.WithCancelCause(t.Context())
		cancel(cause)
		if got := glue.Failure(ctx, "fw", errors.New("boom")); !errors.Is(got, cause) {
			t.Errorf("error = %v, want the context's cause", got)
		}
	})
}
