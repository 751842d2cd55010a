package wiretest

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
)

// Streamed is a reply as one body and the same reply streamed: Events in
// the provider's stream format, or when nil the body streamed by the
// adapter's [Adapter.Streams].
type Streamed struct {
	Name   string
	Body   string
	Events []string
}

// StreamAddsUp checks that each case's reply, streamed and read to its
// end as the chunks' documentation says, is what Generate returns for it
// whole: text, calls, usage and stop reason alike.
func StreamAddsUp(t *testing.T, a Adapter, cases []Streamed) {
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			streamed := OK(tt.Body)
			if tt.Events != nil {
				streamed = Stream(tt.Events...)
			}
			srv := a.Server(t, OK(tt.Body), streamed)
			m := a.Model(t, srv)
			want, err := m.Generate(context.Background(), Turn)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Collect(m.GenerateStream(context.Background(), Turn))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("streamed reply = %+v,\nwant what Generate returns: %+v", got, want)
			}
		})
	}
}

// StreamYields checks that GenerateStream, over a stream of events,
// yields the chunks want, each as its event arrives.
func StreamYields(t *testing.T, a Adapter, events []string, want []agent.Chunk) {
	srv := a.Server(t, Stream(events...))
	var got []agent.Chunk
	for c, err := range a.Model(t, srv).GenerateStream(context.Background(), Turn) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chunks:\n%s\nwant:\n%s", Show(got), Show(want))
	}
}

// StreamFailure is a reply a stream fails with, before it begins or
// inside it, and the *agent.ProviderError the adapter must make of it.
type StreamFailure struct {
	Name       string
	Reply      Reply
	Kind       events.ErrorKind
	Status     int
	RetryAfter time.Duration
	Message    string // checked when set
	Before     string // the text yielded before the failure
}

// StreamFailures checks that GenerateStream ends each case's reply with
// its ProviderError, classified as Generate classifies a failure, after
// the text that came before it, and sends the request once though the
// client asks its SDK to retry.
func StreamFailures(t *testing.T, a Adapter, cases []StreamFailure) {
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			srv := a.Server(t, tt.Reply)
			got, err := Collect(a.Retrying(t, srv).GenerateStream(context.Background(), Turn))
			pe := a.ProviderError(t, err)
			if got, want := pe.Kind, tt.Kind; got != want {
				t.Errorf("Kind = %q, want %q (%v)", got, want, pe)
			}
			if got, want := pe.HTTPStatus, tt.Status; got != want {
				t.Errorf("HTTPStatus = %d, want %d", got, want)
			}
			if got, want := pe.RetryAfter, tt.RetryAfter; got != want {
				t.Errorf("RetryAfter = %v, want %v", got, want)
			}
			if tt.Message != "" && pe.Message != tt.Message {
				t.Errorf("Message = %q, want %q", pe.Message, tt.Message)
			}
			if got, want := pe.Retryable(), tt.Kind.Retryable(); got != want {
				t.Errorf("Retryable() = %v, want %v", got, want)
			}
			if got, want := got.Message.Content, tt.Before; got != want {
				t.Errorf("text before the failure = %q, want %q", got, want)
			}
			if got := len(srv.Requests()); got != 1 {
				t.Errorf("server saw %d requests, want exactly 1: the SDK must not retry", got)
			}
		})
	}
}

// StreamStopsWithItsConsumer checks that a consumer that stops reading
// a stream, by breaking out of its loop or by cancelling its context,
// ends the request: the server, which sends opening (events that begin a
// reply with some text) and holds the reply open, sees the client go,
// and the cancelling consumer gets its context's cause.
func StreamStopsWithItsConsumer(t *testing.T, a Adapter, opening []string) {
	t.Run("a consumer that breaks out of its loop", func(t *testing.T) {
		gone := make(chan struct{})
		srv := a.Server(t, Reply{Status: 200, Events: opening, Gone: gone})
		text := false
		for c, err := range a.Model(t, srv).GenerateStream(context.Background(), Turn) {
			if err != nil {
				t.Fatal(err)
			}
			if text = c.Text != ""; text {
				break
			}
		}
		if !text {
			t.Fatal("the stream ended before any text")
		}
		WaitGone(t, gone)
	})
	t.Run("a consumer that cancels the context gets its cause", func(t *testing.T) {
		gone := make(chan struct{})
		srv := a.Server(t, Reply{Status: 200, Events: opening, Gone: gone})
		stop := errors.New("doomed answer")
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		var last error
		for c, err := range a.Model(t, srv).GenerateStream(ctx, Turn) {
			if err != nil {
				last = err
				break
			}
			if c.Text != "" {
				cancel(stop)
			}
		}
		if !errors.Is(last, stop) {
			t.Errorf("err = %v, want the context's cause", last)
		}
		var pe *agent.ProviderError
		if errors.As(last, &pe) {
			t.Errorf("err is a ProviderError (%v), want the cause alone", pe)
		}
		WaitGone(t, gone)
	})
}

// TypedStreamLeavesNothingBehind checks that a caller that stops reading
// a typed stream over the adapter ends the request: the server, which
// sends opening (events that begin a Weather answer, its city whole) and
// holds the reply open, sees the connection close, and no goroutine of
// the run or the connection is left behind.
func TypedStreamLeavesNothingBehind(t *testing.T, a Adapter, opening []string) {
	gone := make(chan struct{})
	srv := a.Server(t, Reply{Status: 200, Gone: gone, Events: opening})
	before := runtime.NumGoroutine()
	s := agent.RunTypedStream[Weather](context.Background(), agent.New(a.Model(t, srv)), "Weather in Paris?")
	for p := range s.Partials() {
		if p.Value.City != "" {
			break
		}
	}
	if _, _, err := s.Result(); !errors.Is(err, agent.ErrStoppedReading) {
		t.Errorf("err = %v, want ErrStoppedReading", err)
	}
	WaitGone(t, gone)
	WaitGoroutines(t, before)
}

// StreamEndsAtItsEnd checks that a streamed reply ends at the event that
// ends it in the provider's format: what events send after it is no part
// of the reply, which is want (its text, usage and stop reason), whether
// the server then ends the stream (with closing, the provider's end of
// stream, if it has one) or holds it open, which the adapter does not
// wait for.
func StreamEndsAtItsEnd(t *testing.T, a Adapter, events, closing []string, want agent.Response) {
	read := func(t *testing.T, rep Reply) {
		t.Helper()
		srv := a.Server(t, rep)
		// The deadline bounds a failing test: a stream read past its end
		// waits for a server that never ends it.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := Collect(a.Model(t, srv).GenerateStream(ctx, Turn))
		if err != nil {
			t.Fatalf("err = %v, want the reply read to its end", err)
		}
		if got := resp.Message.Content; got != want.Message.Content {
			t.Errorf("content = %q, want %q", got, want.Message.Content)
		}
		if got := resp.Usage; got != want.Usage {
			t.Errorf("usage = %+v, want %+v", got, want.Usage)
		}
		if got := resp.Stop; got != want.Stop {
			t.Errorf("stop = %q, want %q", got, want.Stop)
		}
	}
	t.Run("what follows the end is dropped", func(t *testing.T) {
		read(t, Stream(append(append([]string(nil), events...), closing...)...))
	})
	t.Run("a server that holds the stream open after the end", func(t *testing.T) {
		gone := make(chan struct{})
		read(t, Reply{Status: 200, Events: events, Gone: gone})
		WaitGone(t, gone)
	})
}

// Counted is a reply body and the usage the adapter must read from it.
type Counted struct {
	Name  string
	Body  string
	Usage agent.Usage
	// Streamed says the body as the adapter's Streams sends it reports
	// the same usage, which GenerateStream must then read too.
	Streamed bool
}

// UsageCounts checks that Generate reads each case's usage from its
// body, and GenerateStream the same from the body streamed.
func UsageCounts(t *testing.T, a Adapter, cases []Counted) {
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			script := []Reply{OK(tt.Body)}
			if tt.Streamed {
				script = append(script, OK(tt.Body))
			}
			m := a.Model(t, a.Server(t, script...))
			resp, err := m.Generate(context.Background(), Turn)
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Usage; got != tt.Usage {
				t.Errorf("Generate usage = %+v, want %+v", got, tt.Usage)
			}
			if !tt.Streamed {
				return
			}
			streamed, err := Collect(m.GenerateStream(context.Background(), Turn))
			if err != nil {
				t.Fatal(err)
			}
			if got := streamed.Usage; got != tt.Usage {
				t.Errorf("GenerateStream usage = %+v, want %+v", got, tt.Usage)
			}
		})
	}
}
