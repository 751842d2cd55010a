// Package wiretest is the scripted HTTP server the provider adapters'
// tests run against: it answers with a script of replies in the
// provider's wire format — whole bodies, or streams of server-sent events
// that may be cut or held open until the client goes — and keeps every
// request it received, so a test asserts on what the adapter sent. It fails the test on a request past
// the script's end and, at cleanup, on replies left unused.
//
// It also holds the scenarios every adapter runs, as testing/slogtest
// does for slog handlers: each checks one behaviour the adapters document
// alike against an [Adapter] — the adapter under test, its provider's
// stream format, a reader of the requests it sends — and takes the
// replies in the provider's wire format from its caller. An adapter's
// test names the behaviour and calls the scenario:
//
//	func TestTransportFailures(t *testing.T) {
//		wiretest.TransportFailures(t, adapter)
//	}
//
// What differs between the providers in substance (their documented
// stop reasons, error types, request shapes) stays in each adapter's own
// tests.
package wiretest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Reply is one scripted HTTP response.
type Reply struct {
	Status int
	Header map[string]string
	Body   string
	// Repeat, when set, is written Times times after Body, before the
	// events: a body of any size, without holding it in memory.
	Repeat string
	Times  int

	// Events, when set, make the reply a text/event-stream: each one is
	// written and flushed in turn, after Body. Each is a whole event in
	// the provider's format, blank line included.
	Events []string
	// Cut drops the connection after the events, mid-body, as a provider
	// or proxy does when it fails: the client reads an unexpected EOF.
	Cut bool
	// Gone, when set, keeps the reply open after the events until the
	// client goes away (its request's context is done); the handler then
	// closes Gone. A test waits on it to see that the client closed the
	// connection.
	Gone chan struct{}
}

// OK is a 200 with a JSON body.
func OK(body string) Reply { return Reply{Status: http.StatusOK, Body: body} }

// Stream is a 200 whose body is events, a text/event-stream.
func Stream(events ...string) Reply { return Reply{Status: http.StatusOK, Events: events} }

// WaitGone waits until the handler has seen the client go away, and fails
// the test if it has not within a minute: the time bounds a failing test,
// it is no part of a passing one.
func WaitGone(t testing.TB, gone <-chan struct{}) {
	t.Helper()
	select {
	case <-gone:
	case <-time.After(time.Minute):
		t.Fatal("the server never saw the client close the connection")
	}
}

// Server is a scripted server on a loopback port.
type Server struct {
	URL string

	t      testing.TB
	srv    *httptest.Server
	quit   chan struct{} // closed at cleanup, so that held replies end
	events func(body string) []string
	refuse func(body []byte) (status int, reply string, refused bool)
	mu     sync.Mutex
	script []Reply
	bodies [][]byte
	paths  []string
}

// NewServer starts a server that answers with script in order.
func NewServer(t testing.TB, script ...Reply) *Server {
	t.Helper()
	s := &Server{t: t, script: script, quit: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(func() {
		close(s.quit)
		s.srv.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.script) > 0 {
			t.Errorf("%d scripted replies left unused", len(s.script))
		}
	})
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	s.paths = append(s.paths, r.Method+" "+r.URL.Path)
	if s.refuse != nil {
		if status, reply, refused := s.refuse(body); refused {
			s.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, reply)
			return
		}
	}
	if len(s.script) == 0 {
		s.mu.Unlock()
		s.t.Errorf("unscripted request %d: %s", len(s.bodies), body)
		http.Error(w, "unscripted", http.StatusTeapot)
		return
	}
	rep := s.script[0]
	s.script = s.script[1:]
	s.mu.Unlock()
	if s.events != nil && rep.Events == nil && rep.Status == http.StatusOK && wantsStream(r, body) {
		rep.Events, rep.Body = s.events(rep.Body), ""
	}
	w.Header().Set("Content-Type", "application/json")
	if rep.Events != nil {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(rep.Status)
	io.WriteString(w, rep.Body)
	if rep.Repeat != "" {
		b := []byte(rep.Repeat)
		for range rep.Times {
			if _, err := w.Write(b); err != nil {
				return // the client went away
			}
		}
	}
	flusher, _ := w.(http.Flusher)
	for _, ev := range rep.Events {
		io.WriteString(w, ev)
		flusher.Flush()
	}
	if rep.Gone != nil {
		select {
		case <-r.Context().Done():
			close(rep.Gone)
		case <-s.quit:
		}
	}
	if rep.Cut {
		// The server closes the connection without ending the chunked
		// body.
		panic(http.ErrAbortHandler)
	}
}

// StreamsWith makes the server answer a request for a stream (a body with
// "stream": true, or a path ending in ":streamGenerateContent", as Gemini
// asks) whose scripted reply is a 200 with a whole body by
// streaming events(body) instead: the same reply in the provider's stream
// format. Call it before the first request.
func (s *Server) StreamsWith(events func(body string) []string) {
	s.events = events
}

// Refuses makes the server answer a request that check refuses with
// check's status and body, as the provider would, before the script is
// looked at: a refused request uses no scripted reply. Call it before the
// first request.
func (s *Server) Refuses(check func(body []byte) (status int, reply string, refused bool)) {
	s.refuse = check
}

// Requests returns the request bodies received so far, in order.
func (s *Server) Requests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies...)
}

// wantsStream reports a request that asks for a stream.
func wantsStream(r *http.Request, body []byte) bool {
	if strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
		return true
	}
	var req struct {
		Stream bool `json:"stream"`
	}
	return json.Unmarshal(body, &req) == nil && req.Stream
}

// Paths returns "METHOD /path" of each request received so far.
func (s *Server) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...)
}

// WaitGoroutines waits until no more goroutines run than before, giving
// finished ones (a closed connection's) a bounded chance to exit, and
// fails the test if more are left: the time bounds a failing test, it is
// no part of a passing one.
func WaitGoroutines(t testing.TB, before int) {
	t.Helper()
	for bound := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(bound); {
		runtime.Gosched()
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines left, %d before", after, before)
	}
}

// Allocated is the bytes allocated, by every goroutine, while f runs: a
// test that bounds it runs no test in parallel with it.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
