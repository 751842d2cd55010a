package wiretest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
)

// mib is one MiB of text, to send many times.
var mib = strings.Repeat("x", 1<<20)

// Heads are how the bodies a provider sends begin, in its wire format,
// for the bounds scenario to send them on without end.
type Heads struct {
	Event string // before a streamed event's data lines ("event: …\n"), if anything
	Body  string // a reply body, up to its text
	Error string // an error body, up to its message
}

// RepliesAreBounded checks that no reply is read past a bound of
// internal/wire, from the socket up: whatever a server sends, streamed or
// not, error bodies too, the call fails with a ProviderError matching
// wire.ErrTooLong once it is passed (an error body's keeps its status and
// Retry-After), and what it costs stays within a few times the bound (the
// SDKs' buffers grow as they read; 192 MiB read whole cost several times
// that). No test may run in parallel with it.
func RepliesAreBounded(t *testing.T, a Adapter, h Heads) {
	sse := map[string]string{"Content-Type": "text/event-stream"}
	limited := map[string]string{"Retry-After": "7"}
	tests := []struct {
		name     string
		stream   bool
		reply    Reply
		kind     events.ErrorKind
		status   int
		maxAlloc uint64
		lines    bool // an event of endless data lines (see Adapter.LinesAlone)
	}{
		{"a streamed event of endless data lines", true,
			Reply{Status: 200, Header: sse, Events: []string{}, Body: h.Event, Repeat: "data: " + mib + "\n", Times: 192},
			events.KindUnknown, 200, 8 * wire.MaxEventBytes, true},
		{"a body far past the bound", false,
			Reply{Status: 200, Body: h.Body, Repeat: mib, Times: 192},
			events.KindUnknown, 200, 8 * wire.MaxBodyBytes, false},
		{"a 429 with a huge body", false,
			Reply{Status: 429, Header: limited, Body: h.Error, Repeat: mib, Times: 192},
			events.KindRateLimit, 429, 8 * wire.MaxErrorBytes, false},
		{"a streamed 429 with a huge body", true,
			Reply{Status: 429, Header: limited, Body: h.Error, Repeat: mib, Times: 192},
			events.KindRateLimit, 429, 8 * wire.MaxErrorBytes, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := a.Model(t, NewServer(t, tt.reply))
			var err error
			n := Allocated(func() {
				if tt.stream {
					_, err = Collect(m.GenerateStream(context.Background(), Turn))
				} else {
					_, err = m.Generate(context.Background(), Turn)
				}
			})
			var pe *agent.ProviderError
			if !errors.As(err, &pe) || !errors.Is(err, wire.ErrTooLong) && !(tt.lines && a.LinesAlone) {
				t.Fatalf("err = %.300v, want a ProviderError matching wire.ErrTooLong", err)
			}
			if pe.Kind != tt.kind || pe.HTTPStatus != tt.status {
				t.Errorf("kind %q, status %d, want %q, %d", pe.Kind, pe.HTTPStatus, tt.kind, tt.status)
			}
			if tt.status == 429 && pe.RetryAfter != 7*time.Second {
				t.Errorf("RetryAfter = %v, want the header's 7s", pe.RetryAfter)
			}
			if n > tt.maxAlloc {
				t.Errorf("the call allocated %d MiB, want at most %d", n>>20, tt.maxAlloc>>20)
			}
		})
	}
}

// RunPastABoundFailsWithErrModel checks that through the agent, a reply
// read to a bound of internal/wire fails the run as a model call that
// failed.
func RunPastABoundFailsWithErrModel(t *testing.T, a Adapter) {
	srv := NewServer(t, Reply{Status: 200, Header: map[string]string{"Content-Type": "text/event-stream"},
		Events: []string{}, Repeat: "data: " + mib + "\n", Times: 2 * wire.MaxEventBytes >> 20})
	_, err := agent.New(a.Model(t, srv)).Run(context.Background(), "Weather in Paris?")
	var pe *agent.ProviderError
	if !errors.Is(err, agent.ErrModel) || !errors.As(err, &pe) || pe.Kind != events.KindUnknown {
		t.Errorf("err = %.300v, want ErrModel and a ProviderError of kind unknown", err)
	}
}

// AWebPageIsOneFailure checks that a 200 whose body is a web page (a
// proxy's, a captive portal's) is one failure, whether the call streams
// or not: a malformed response, not retried, not a lost connection.
func AWebPageIsOneFailure(t *testing.T, a Adapter) {
	page := Reply{Status: 200, Header: map[string]string{"Content-Type": "text/html"}, Body: "<html><body>Sign in to the Wi-Fi</body></html>"}
	m := a.Model(t, NewServer(t, page, page))
	_, generr := m.Generate(context.Background(), Turn)
	_, streamerr := Collect(m.GenerateStream(context.Background(), Turn))
	var g, s *agent.ProviderError
	if !errors.As(generr, &g) || !errors.As(streamerr, &s) {
		t.Fatalf("errors %v and %v, want ProviderErrors", generr, streamerr)
	}
	type class struct {
		Kind      events.ErrorKind
		Status    int
		Message   string
		Retryable bool
	}
	want := class{events.KindUnknown, 200, "malformed response body", false}
	if got := (class{g.Kind, g.HTTPStatus, g.Message, g.Retryable()}); got != want {
		t.Errorf("Generate: %+v, want %+v", got, want)
	}
	if got := (class{s.Kind, s.HTTPStatus, s.Message, s.Retryable()}); got != want {
		t.Errorf("GenerateStream: %+v, want %+v, as Generate", got, want)
	}
}

// ARetryAfterPastTheCapIsTheCap checks that a Retry-After past the cap,
// however large, reads as the cap (24 h), not as absent.
func ARetryAfterPastTheCapIsTheCap(t *testing.T, a Adapter) {
	for _, v := range []string{"1e300", "1e400"} {
		t.Run(v, func(t *testing.T) {
			srv := NewServer(t, Reply{Status: 429, Header: map[string]string{"Retry-After": v}, Body: "{}"})
			_, err := a.Model(t, srv).Generate(context.Background(), Turn)
			var pe *agent.ProviderError
			if !errors.As(err, &pe) || pe.RetryAfter != 24*time.Hour {
				t.Errorf("err = %v, want RetryAfter 24h", err)
			}
		})
	}
}
