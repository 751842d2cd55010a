package anthropic

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// mib is one MiB of text, to send many times.
var mib = strings.Repeat("x", 1<<20)

// No reply is read past a bound, from the socket up: whatever a server
// sends, streamed or not, error bodies too, the call fails with a
// ProviderError naming the bound once it is passed, and what it costs
// stays within a few times the bound (the SDKs' buffers grow as they
// read; 192 MiB read whole cost several times that).
func TestAReplyIsReadNoFurtherThanItsBounds(t *testing.T) {
	sseHeader := map[string]string{"Content-Type": "text/event-stream"}
	tests := []struct {
		name     string
		stream   bool
		reply    reply
		kind     events.ErrorKind
		status   int
		maxAlloc uint64
	}{
		{"a streamed event of endless data lines", true,
			reply{Status: 200, Header: sseHeader, Events: []string{}, Body: "event: content_block_delta\n", Repeat: "data: " + mib + "\n", Times: 192},
			events.KindUnknown, 200, 8 * wire.MaxEventBytes},
		{"a body far past the bound", false,
			reply{Status: 200, Body: `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"`, Repeat: mib, Times: 192},
			events.KindUnknown, 200, 8 * wire.MaxBodyBytes},
		{"a 429 with a huge body", false,
			reply{Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: `{"type":"error","error":{"type":"rate_limit_error","message":"`, Repeat: mib, Times: 192},
			events.KindRateLimit, 429, 8 * wire.MaxErrorBytes},
		{"a streamed 429 with a huge body", true,
			reply{Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: `{"type":"error","error":{"type":"rate_limit_error","message":"`, Repeat: mib, Times: 192},
			events.KindRateLimit, 429, 8 * wire.MaxErrorBytes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &fakeServer{wiretest.NewServer(t, tt.reply)}
			m := New(srv.client(), "claude-sonnet-4-5")
			var err error
			n := wiretest.Allocated(func() {
				if tt.stream {
					_, err = wiretest.Collect(m.GenerateStream(context.Background(), userTurn))
				} else {
					_, err = m.Generate(context.Background(), userTurn)
				}
			})
			var pe *agent.ProviderError
			if !errors.As(err, &pe) || !errors.Is(err, wire.ErrTooLong) {
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

// The reply ends at message_stop: a delta sent after it is no part of
// the reply (it would turn a valid answer into a json-parse failure), and
// the connection is closed then, even when the server holds it open.
func TestAStreamedReplyEndsAtMessageStop(t *testing.T) {
	answer := `{"city":"Paris"}`
	after := append(textStream("end_turn", 9, 4, answer), sseText(0, " and more"))
	wiretest.StreamEndsAtItsEnd(t, adapter, after, nil, agent.Response{
		Message: agent.Message{Content: answer}, Usage: agent.Usage{InputTokens: 9, OutputTokens: 4, Detailed: true}, Stop: agent.StopComplete,
	})
}

// A 200 whose body is a web page (a proxy's, a captive portal's) is one
// failure, whether the call streams or not: a malformed response, not
// retried, not a lost connection.
func TestAWebPageIsTheSameFailureStreamedOrNot(t *testing.T) {
	page := reply{Status: 200, Header: map[string]string{"Content-Type": "text/html"}, Body: "<html><body>Sign in to the Wi-Fi</body></html>"}
	srv := &fakeServer{wiretest.NewServer(t, page, page)}
	m := New(srv.client(), "claude-sonnet-4-5")
	_, generr := m.Generate(context.Background(), userTurn)
	_, streamerr := wiretest.Collect(m.GenerateStream(context.Background(), userTurn))
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

// A Retry-After past the cap, however large, reads as the cap (24 h),
// not as absent.
func TestARetryAfterPastTheCapIsTheCap(t *testing.T) {
	for _, v := range []string{"1e300", "1e400"} {
		t.Run(v, func(t *testing.T) {
			srv := &fakeServer{wiretest.NewServer(t, reply{Status: 429, Header: map[string]string{"Retry-After": v}, Body: "{}"})}
			_, err := New(srv.client(), "claude-sonnet-4-5").Generate(context.Background(), userTurn)
			var pe *agent.ProviderError
			if !errors.As(err, &pe) || pe.RetryAfter != 24*time.Hour {
				t.Errorf("err = %v, want RetryAfter 24h", err)
			}
		})
	}
}

// Through the agent, a reply read to a bound fails the run as a model
// call that failed.
func TestARunOverAReplyPastItsBoundFailsWithErrModel(t *testing.T) {
	srv := &fakeServer{wiretest.NewServer(t, reply{Status: 200, Header: map[string]string{"Content-Type": "text/event-stream"},
		Events: []string{}, Repeat: "data: " + mib + "\n", Times: 2 * wire.MaxEventBytes >> 20})}
	_, err := agent.New(New(srv.client(), "claude-sonnet-4-5")).Run(context.Background(), "Weather in Paris?")
	var pe *agent.ProviderError
	if !errors.Is(err, agent.ErrModel) || !errors.As(err, &pe) || pe.Kind != events.KindUnknown {
		t.Errorf("err = %.300v, want ErrModel and a ProviderError of kind unknown", err)
	}
}
