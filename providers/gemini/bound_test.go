package gemini

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// endless is a server that answers with status, header and head, then
// repeats tail until the client goes away, and closes gone then.
func endless(t *testing.T, status int, contentType, head, tail string) (url string, gone <-chan struct{}) {
	t.Helper()
	g := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(status)
		io.WriteString(w, head)
		chunk := []byte(strings.Repeat(tail, max(1, 32<<10/len(tail))))
		for {
			if _, err := w.Write(chunk); err != nil {
				break
			}
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			if r.Context().Err() != nil {
				break
			}
		}
		close(g)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, g
}

const bound = 64 << 10

func TestNoReplyIsReadPastItsBound(t *testing.T) {
	tests := []struct {
		name             string
		status           int
		contentType      string
		head, tail       string
		stream           bool
		kind             events.ErrorKind
		wantStatus       int
		wantRetryAfterOn bool
	}{
		{"a body without end", 200, "application/json", `{"candidates":[{"content":{"parts":[{"text":"`, "a", false, events.KindUnknown, 200, false},
		{"one event without end", 200, "text/event-stream", `data: {"candidates":[{"content":{"parts":[{"text":"`, "a", true, events.KindUnknown, 200, false},
		{"one event of endless lines", 200, "text/event-stream", "", "data: " + strings.Repeat("x", 100) + "\n", true, events.KindUnknown, 200, false},
		{"endless events that carry nothing", 200, "text/event-stream", "",
			"data: {\"usageMetadata\":{\"promptTokenCount\":1}}\r\n\r\n", true, events.KindUnknown, 200, false},
		{"an error body without end keeps its status", 429, "application/json", `{"error":{"code":429,"message":"`, "a", false, events.KindRateLimit, 429, true},
		{"an error body without end, streamed", 429, "application/json", `{"error":{"code":429,"message":"`, "a", true, events.KindRateLimit, 429, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, gone := endless(t, tt.status, tt.contentType, tt.head, tt.tail)
			m := New(newClient(t, url), "gemini-test", WithMaxReplyBytes(bound))
			var err error
			if tt.stream {
				_, _, err = streamErr(t, m, t.Context())
			} else {
				_, err = m.Generate(t.Context(), plain())
			}
			var pe *agent.ProviderError
			if !errors.As(err, &pe) || !errors.Is(err, ErrReplyTooLarge) {
				t.Fatalf("err = %v, want a ProviderError matching ErrReplyTooLarge", err)
			}
			if pe.Kind != tt.kind || pe.HTTPStatus != tt.wantStatus || (pe.RetryAfter > 0) != tt.wantRetryAfterOn {
				t.Errorf("got %+v, want kind %s, status %d", *pe, tt.kind, tt.wantStatus)
			}
			wiretest.WaitGone(t, gone)
		})
	}
}

func TestAReplyWithinItsBoundIsReadWhole(t *testing.T) {
	long := strings.Repeat("a", bound-300)
	srv := newFakeServer(t, okReply(answer(long)), wiretest.Stream(textChunk(long), textChunk(long), finish("STOP", 10, 5)))
	m := New(srv.client(t), "gemini-test", WithMaxReplyBytes(bound))
	resp, err := m.Generate(t.Context(), plain())
	if err != nil || resp.Message.Content != long {
		t.Fatalf("Generate = %d bytes, %v; want the whole reply", len(resp.Message.Content), err)
	}
	// Two events each just within the bound: the stream is past it, each
	// event is not.
	got, err := wiretest.Collect(m.GenerateStream(t.Context(), plain()))
	if err != nil || got.Message.Content != long+long {
		t.Fatalf("GenerateStream = %d bytes, %v; want the whole reply", len(got.Message.Content), err)
	}
}

func TestTheEventBoundCountsAcrossReads(t *testing.T) {
	// One event split over many reads, its blank line in two reads.
	c := &call{max: 10}
	b := &boundedBody{rc: io.NopCloser(&oneByteReader{strings.NewReader("data: 1234\r\n\r\ndata: 12345678901\n\n")}), c: c, bound: 1 << 20, left: 1 << 20, event: 10}
	n, err := io.Copy(io.Discard, b)
	if !errors.Is(err, ErrReplyTooLarge) {
		t.Fatalf("read %d bytes, err = %v; want ErrReplyTooLarge at the second event", n, err)
	}
	if want := int64(len("data: 1234\r\n\r\n") + 10); n != want {
		t.Errorf("read %d bytes, want %d: up to the event bound of the second event", n, want)
	}
}

type oneByteReader struct{ r io.Reader }

func (o *oneByteReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}
