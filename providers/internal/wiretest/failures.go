package wiretest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
)

// Failure is a reply a provider fails a call with, and the
// *agent.ProviderError the adapter must make of it.
type Failure struct {
	Name       string
	Reply      Reply
	Kind       events.ErrorKind
	Status     int // HTTPStatus
	RetryAfter time.Duration
	Message    string
	Retryable  bool
}

// ProviderError is err as a *agent.ProviderError of a's System, failing t
// when it is not one.
func (a Adapter) ProviderError(t *testing.T, err error) *agent.ProviderError {
	t.Helper()
	var pe *agent.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v (%T), want *agent.ProviderError", err, err)
	}
	if got, want := pe.System, a.System; got != want {
		t.Errorf("System = %q, want %q", got, want)
	}
	return pe
}

// ProviderErrors checks that Generate fails each case's reply with its
// ProviderError — kind, status, Retry-After, message, retryability, the
// SDK's error kept — and sends the request once, though the client asks
// its SDK to retry. sdkError, when not nil, says whether an error is the
// SDK's own API error, which the ProviderError must unwrap to.
func ProviderErrors(t *testing.T, a Adapter, cases []Failure, sdkError func(error) bool) {
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			srv := a.Server(t, tt.Reply)
			_, err := a.Retrying(t, srv).Generate(context.Background(), Turn)
			pe := a.ProviderError(t, err)
			if got, want := pe.Kind, tt.Kind; got != want {
				t.Errorf("Kind = %q, want %q", got, want)
			}
			if got, want := pe.HTTPStatus, tt.Status; got != want {
				t.Errorf("HTTPStatus = %d, want %d", got, want)
			}
			if got, want := pe.RetryAfter, tt.RetryAfter; got != want {
				t.Errorf("RetryAfter = %v, want %v", got, want)
			}
			if got, want := pe.Message, tt.Message; got != want {
				t.Errorf("Message = %q, want %q", got, want)
			}
			if got, want := pe.Retryable(), tt.Retryable; got != want {
				t.Errorf("Retryable() = %v, want %v", got, want)
			}
			if pe.Err == nil {
				t.Error("Err is nil, want the SDK's error")
			}
			if sdkError != nil && !sdkError(err) {
				t.Errorf("err = %v, want it to unwrap to the SDK's API error", err)
			}
			if got := len(srv.Requests()); got != 1 {
				t.Errorf("server saw %d requests, want exactly 1: the SDK must not retry", got)
			}
		})
	}
}

// Body is a named reply body.
type Body struct{ Name, Body string }

// MalformedResponses checks that a 200 whose body is not a reply (each
// of bodies) fails Generate, without a panic, with a ProviderError of
// kind unknown that keeps the status and is not retried.
func MalformedResponses(t *testing.T, a Adapter, bodies []Body) {
	for _, tt := range bodies {
		t.Run(tt.Name, func(t *testing.T) {
			srv := a.Server(t, OK(tt.Body))
			_, err := a.Model(t, srv).Generate(context.Background(), Turn)
			pe := a.ProviderError(t, err)
			if got, want := pe.Kind, events.KindUnknown; got != want {
				t.Errorf("Kind = %q, want %q", got, want)
			}
			if got, want := pe.HTTPStatus, http.StatusOK; got != want {
				t.Errorf("HTTPStatus = %d, want %d", got, want)
			}
			if pe.Retryable() {
				t.Error("a malformed body is retryable, want not")
			}
			if got := len(srv.Requests()); got != 1 {
				t.Errorf("server saw %d requests, want 1", got)
			}
		})
	}
}

// TransportFailures checks the failures without a provider's answer: a
// refused connection and a body that ends early are retryable connection
// errors, a request timeout a retryable timeout, and a cancelled context
// returns its cause, not a ProviderError.
func TransportFailures(t *testing.T, a Adapter) {
	t.Run("a refused connection is a retryable connection error", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		_, err := a.New(t, Client{URL: url}).Generate(context.Background(), Turn)
		var pe *agent.ProviderError
		if !errors.As(err, &pe) || pe.Kind != events.KindConnection || pe.HTTPStatus != 0 || !pe.Retryable() {
			t.Fatalf("err = %#v, want a retryable ProviderError of kind connection without status", err)
		}
	})
	t.Run("a request timeout is a retryable timeout", func(t *testing.T) {
		srv := httptest.NewServer(Hang(func() {}))
		defer srv.Close()
		_, err := a.New(t, Client{URL: srv.URL, Timeout: 20 * time.Millisecond}).Generate(context.Background(), Turn)
		var pe *agent.ProviderError
		if !errors.As(err, &pe) || pe.Kind != events.KindTimeout || !pe.Retryable() {
			t.Fatalf("err = %v, want a retryable ProviderError of kind timeout", err)
		}
	})
	t.Run("a body that ends early is a retryable connection error", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "1000")
			io.WriteString(w, `{"id":"x","choices":[`)
		}))
		defer srv.Close()
		_, err := a.New(t, Client{URL: srv.URL}).Generate(context.Background(), Turn)
		var pe *agent.ProviderError
		if !errors.As(err, &pe) || pe.Kind != events.KindConnection || !pe.Retryable() {
			t.Fatalf("err = %v, want a retryable ProviderError of kind connection", err)
		}
	})
	t.Run("a cancelled context returns its cause, not a provider error", func(t *testing.T) {
		stop := errors.New("user went away")
		ctx, cancel := context.WithCancelCause(context.Background())
		srv := httptest.NewServer(Hang(func() { cancel(stop) }))
		defer srv.Close()
		_, err := a.New(t, Client{URL: srv.URL}).Generate(ctx, Turn)
		if !errors.Is(err, stop) {
			t.Fatalf("err = %v, want the context's cause", err)
		}
		var pe *agent.ProviderError
		if errors.As(err, &pe) {
			t.Errorf("err is a ProviderError (%v), want the cause alone", pe)
		}
	})
}

// AStatusOutsideHTTP checks that a reply whose status is no HTTP status
// (999, body the provider's error body) is an unknown failure without
// the status, not retried.
func AStatusOutsideHTTP(t *testing.T, a Adapter, body string) {
	srv := a.Server(t, Reply{Status: 999, Body: body})
	_, err := a.Model(t, srv).Generate(context.Background(), Turn)
	pe := a.ProviderError(t, err)
	if got, want := pe.Kind, events.KindUnknown; got != want {
		t.Errorf("Kind = %q, want %q", got, want)
	}
	if got, want := pe.HTTPStatus, 0; got != want {
		t.Errorf("HTTPStatus = %d, want %d: 999 is no HTTP status", got, want)
	}
	if pe.Retryable() {
		t.Error("Retryable() = true, want false for an unknown failure")
	}
}

// Configured is a named adapter, made with some options.
type Configured struct {
	Name  string
	Model agent.StreamingModel
}

// InvalidOptions checks that an adapter made with invalid options fails
// every call, Generate and GenerateStream alike, with an error matching
// agent.ErrInvalidOption, and sends nothing.
func InvalidOptions(t *testing.T, models []Configured) {
	for _, tt := range models {
		t.Run(tt.Name, func(t *testing.T) {
			if _, err := tt.Model.Generate(context.Background(), Turn); !errors.Is(err, agent.ErrInvalidOption) {
				t.Errorf("Generate: err = %v, want agent.ErrInvalidOption", err)
			}
			n := 0
			var last error
			for _, err := range tt.Model.GenerateStream(context.Background(), Turn) {
				n++
				last = err
			}
			if n != 1 || !errors.Is(last, agent.ErrInvalidOption) {
				t.Errorf("GenerateStream yielded %d values ending with %v, want one error matching agent.ErrInvalidOption", n, last)
			}
		})
	}
}

// badRequests are requests no provider can be sent.
var badRequests = []struct {
	name string
	req  agent.Request
}{
	{"an unknown role", agent.Request{Messages: []agent.Message{{Role: "narrator", Content: "x"}}}},
	{"tool parameters that are not a JSON object", agent.Request{Messages: Turn.Messages, Tools: []agent.ToolSpec{{Name: "t", Parameters: json.RawMessage(`[1]`)}}}},
}

// BadInputIsRefused checks that Generate fails a request the provider
// cannot be sent (an unknown role, tool parameters that are no object)
// before sending it: the server, scripted with no reply, fails the test
// on any request.
func BadInputIsRefused(t *testing.T, a Adapter) {
	for _, tt := range badRequests {
		t.Run(tt.name, func(t *testing.T) {
			srv := a.Server(t)
			if _, err := a.Model(t, srv).Generate(context.Background(), tt.req); err == nil {
				t.Error("err = nil, want an error")
			}
		})
	}
}

// StreamRefusesBadInput checks that GenerateStream yields one error, and
// sends nothing, for a request the provider cannot be sent and from an
// adapter made with an invalid option (invalid, over any client).
func StreamRefusesBadInput(t *testing.T, a Adapter, invalid func(t *testing.T, srv *Server) agent.StreamingModel) {
	type refused struct {
		name string
		m    func(*testing.T, *Server) agent.StreamingModel
		req  agent.Request
		is   error
	}
	tests := []refused{{"an invalid option", invalid, Turn, agent.ErrInvalidOption}}
	for _, b := range badRequests {
		tests = append(tests, refused{b.name, a.Model, b.req, nil})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := a.Server(t)
			n := 0
			var last error
			for _, err := range tt.m(t, srv).GenerateStream(context.Background(), tt.req) {
				n++
				last = err
			}
			if n != 1 || last == nil {
				t.Fatalf("yielded %d values ending with %v, want one error", n, last)
			}
			if tt.is != nil && !errors.Is(last, tt.is) {
				t.Errorf("err = %v, want %v", last, tt.is)
			}
		})
	}
}
