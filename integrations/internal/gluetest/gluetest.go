// Package gluetest is what the integrations' tests share: a scripted
// OpenAI-compatible server the frameworks' own OpenAI clients can be
// pointed at, the events a run records, and the checks every
// integration runs through its framework's real client. It is internal
// to the integrations' tests.
package gluetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/enforcer-go/enforcer/internal/eventtest"
)

// Reply is one scripted answer of the server.
type Reply struct {
	Status int               // 0 means 200
	Header map[string]string // set before the status is written
	Body   string            // a whole body (JSON), when not streaming
	// Events are the data of server-sent events, sent in order; then
	// "[DONE]" unless Endless is set.
	Events []string
	// Endless, when set, is sent as an event's data again and again
	// after Events until the client goes (or MaxEndless were sent).
	Endless string
}

// MaxEndless is how many events an Endless reply sends at most: far past
// every bound a client should stop at, so a test that fails does not
// run to its deadline.
const MaxEndless = 1 << 22

// Server is a scripted OpenAI-compatible chat completions server: each
// request takes the next Reply. It records every request's body and
// fails the test when its script runs out.
type Server struct {
	*httptest.Server
	t       testing.TB
	mu      sync.Mutex
	replies []Reply
	bodies  []map[string]any
	sent    []int // events sent per request
}

// NewServer starts a Server with replies; it is closed with the test.
func NewServer(t testing.TB, replies ...Reply) *Server {
	s := &Server{t: t, replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(b, &body)
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	s.sent = append(s.sent, 0)
	n := len(s.bodies) - 1
	if len(s.replies) == 0 {
		s.mu.Unlock()
		s.t.Errorf("gluetest: request %d came after the script ran out", n+1)
		http.Error(w, `{"error":{"message":"no reply scripted"}}`, http.StatusTeapot)
		return
	}
	rep := s.replies[0]
	s.replies = s.replies[1:]
	s.mu.Unlock()
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	if rep.Events == nil && rep.Endless == "" {
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		io.WriteString(w, rep.Body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(status)
	f, _ := w.(http.Flusher)
	send := func(data string) bool {
		if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
			return false
		}
		if f != nil {
			f.Flush()
		}
		s.mu.Lock()
		s.sent[n]++
		s.mu.Unlock()
		return r.Context().Err() == nil
	}
	for _, e := range rep.Events {
		if !send(e) {
			return
		}
	}
	if rep.Endless == "" {
		send("[DONE]")
		return
	}
	// The endless events go 64 a write and a flush: each is still an
	// event of its own to the client, and the server's share of the
	// test's time (a write, a flush and a lock an event) is cut 64 times.
	block := strings.Repeat("data: "+rep.Endless+"\n\n", endlessBatch)
	for range MaxEndless / endlessBatch {
		if _, err := io.WriteString(w, block); err != nil {
			return
		}
		if f != nil {
			f.Flush()
		}
		s.mu.Lock()
		s.sent[n] += endlessBatch
		s.mu.Unlock()
		if r.Context().Err() != nil {
			return
		}
	}
}

// endlessBatch is how many endless events the server writes at once.
const endlessBatch = 64

// Requests is the bodies of the requests so far, decoded.
func (s *Server) Requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.bodies...)
}

// Sent is how many events the server sent in answer to request i
// (0-based).
func (s *Server) Sent(i int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent[i]
}

// Error is an OpenAI error body.
func Error(typ, message string) string {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"type": typ, "message": message}})
	return string(b)
}

// Completion is a whole chat completion answering content, with usage.
func Completion(content string, in, out int) string {
	b, _ := json.Marshal(map[string]any{
		"id": "c1", "object": "chat.completion", "model": "m",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
	})
	return string(b)
}

// Delta is a stream chunk whose choice 0 has delta (a JSON object) and
// finish (when not empty).
func Delta(delta, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}`
}

// Content is a stream chunk of text.
func Content(s string) string {
	b, _ := json.Marshal(s)
	return Delta(`{"content":`+string(b)+`}`, "")
}

// Recorder keeps every event a run records (agent.WithEvents).
type Recorder = eventtest.Recorder
