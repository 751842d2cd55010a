package glue_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

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
		known      glue.Known
		wantSystem string
		wantKind   events.ErrorKind
		wantStatus int
	}{
		{"an opaque error is of kind unknown", errors.New("boom"), glue.Known{}, "fw", events.KindUnknown, 0},
		{"a timeout is of kind timeout", timeoutErr{}, glue.Known{}, "fw", events.KindTimeout, 0},
		{"a deadline is of kind timeout", context.DeadlineExceeded, glue.Known{}, "fw", events.KindTimeout, 0},
		{"a dial error is of kind connection", &net.OpError{Op: "dial", Err: errors.New("refused")}, glue.Known{}, "fw", events.KindConnection, 0},
		{"a provider error is kept as it is", own, glue.Known{}, "openai", events.KindRateLimit, 429},
		{"a status the framework's error carries gives its kind", errors.New("boom"), glue.Known{Status: 503}, "fw", events.KindOverloaded, 503},
		{"a status beats the kind named", errors.New("boom"), glue.Known{Status: 429, Kind: events.KindAuth}, "fw", events.KindRateLimit, 429},
		{"a kind named stands without a status", errors.New("boom"), glue.Known{Kind: events.KindRateLimit}, "fw", events.KindRateLimit, 0},
		{"a success status says nothing", errors.New("boom"), glue.Known{Status: 200}, "fw", events.KindUnknown, 0},
		{"langchaingo's text gives its status", errors.New("API returned unexpected status code: 429: slow down"), glue.Known{}, "fw", events.KindRateLimit, 429},
		{"langchaingo's text without a message", fmt.Errorf("chain: %w", errors.New("API returned unexpected status code: 503")), glue.Known{}, "fw", events.KindOverloaded, 503},
		{"go-openai's text gives its status", errors.New("error, status code: 500, status: 500 Internal Server Error, message: x"), glue.Known{}, "fw", events.KindServerError, 500},
		{"a status in other words is not read", errors.New("the tool got status code: 500"), glue.Known{}, "fw", events.KindUnknown, 0},
		{"four digits are no status", errors.New("unexpected status code: 4290"), glue.Known{}, "fw", events.KindUnknown, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := glue.Failure(t.Context(), "fw", tt.err, tt.known)
			var pe *agent.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("error = %v, want *agent.ProviderError", err)
			}
			if got, want := [3]any{pe.System, pe.Kind, pe.HTTPStatus}, [3]any{tt.wantSystem, tt.wantKind, tt.wantStatus}; got != want {
				t.Errorf("(system, kind, status) = %v, want %v", got, want)
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
		if got := glue.Failure(ctx, "fw", errors.New("boom"), glue.Known{}); !errors.Is(got, cause) {
			t.Errorf("error = %v, want the context's cause", got)
		}
	})
}

// A Retry-After the framework's error kept reaches the ProviderError, so
// a retry waits as the provider asked; a negative one is none.
func TestFailureKeepsTheRetryAfterKnown(t *testing.T) {
	for _, tt := range []struct {
		known time.Duration
		want  time.Duration
	}{{3 * time.Second, 3 * time.Second}, {0, 0}, {-time.Second, 0}} {
		err := glue.Failure(t.Context(), "fw", errors.New("boom"), glue.Known{Status: 429, RetryAfter: tt.known})
		var pe *agent.ProviderError
		if !errors.As(err, &pe) || pe.RetryAfter != tt.want {
			t.Errorf("Known.RetryAfter %v: error = %#v, want a ProviderError with RetryAfter %v", tt.known, err, tt.want)
		}
	}
}

func TestStatusInTextReadsTheClientsWordsOnly(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"API returned unexpected status code: 429", 429},
		{"API returned unexpected status code: 503: overloaded", 503},
		{"unexpected status code: 502 for URL: x", 502},
		{"error, status code: 401, status: 401 Unauthorized, message: bad key", 401},
		{"unexpected status code: 42", 0},
		{"unexpected status code: abc, unexpected status code: 404", 404},
		{"status 429", 0},
		{"", 0},
	}
	for _, tt := range tests {
		if got := glue.StatusInText(tt.text); got != tt.want {
			t.Errorf("StatusInText(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}
