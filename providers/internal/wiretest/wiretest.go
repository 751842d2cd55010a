// Package wiretest is the scripted HTTP server the provider adapters'
// tests run against: it answers with a script of replies in the
// provider's wire format and keeps every request it received, so a test
// asserts on what the adapter sent. It fails the test on a request past
// the script's end and, at cleanup, on replies left unused.
package wiretest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Reply is one scripted HTTP response.
type Reply struct {
	Status int
	Header map[string]string
	Body   string
}

// OK is a 200 with a JSON body.
func OK(body string) Reply { return Reply{Status: http.StatusOK, Body: body} }

// Server is a scripted server on a loopback port.
type Server struct {
	URL string

	t      testing.TB
	srv    *httptest.Server
	mu     sync.Mutex
	script []Reply
	bodies [][]byte
	paths  []string
}

// NewServer starts a server that answers with script in order.
func NewServer(t testing.TB, script ...Reply) *Server {
	t.Helper()
	s := &Server{t: t, script: script}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(func() {
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
	if len(s.script) == 0 {
		s.mu.Unlock()
		s.t.Errorf("unscripted request %d: %s", len(s.bodies), body)
		http.Error(w, "unscripted", http.StatusTeapot)
		return
	}
	rep := s.script[0]
	s.script = s.script[1:]
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(rep.Status)
	io.WriteString(w, rep.Body)
}

// Requests returns the request bodies received so far, in order.
func (s *Server) Requests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies...)
}

// Paths returns "METHOD /path" of each request received so far.
func (s *Server) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...)
}
