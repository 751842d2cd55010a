package wire

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

func readBounded(body string, max, eventMax int64) (string, error) {
	b := &bounded{rc: io.NopCloser(strings.NewReader(body)), max: max, what: "body", eventMax: eventMax}
	got, err := io.ReadAll(b)
	return string(got), err
}

func TestABoundedBodyFailsOnlyPastItsBounds(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		max      int64
		eventMax int64
		tooLong  bool
	}{
		{"a body of exactly its bound", "0123456789", 10, 0, false},
		{"a body a byte past its bound", "0123456789A", 10, 0, true},
		{"events each within the bound", "data: 12\n\ndata: 34\n\n", 1 << 20, 8, false},
		{"an event of short lines past the bound together", "data: 1\ndata: 2\n", 1 << 20, 8, true},
		{"an event ended by CRLF lines", "data: 12\r\n\r\ndata: 34\r\n\r\n", 1 << 20, 8, false},
		{"a line of a lone CR ends the event", "data: 12\n\r\ndata: 34\n\n", 1 << 20, 8, false},
		{"a line of two CRs does not", "data: 12\n\r\r\ndata: 34\n\n", 1 << 20, 8, true},
		{"an unended line past the bound", "data: " + strings.Repeat("x", 100), 1 << 20, 8, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readBounded(tt.body, tt.max, tt.eventMax)
			if gotLong := errors.Is(err, ErrTooLong); gotLong != tt.tooLong || (err != nil && !gotLong) {
				t.Fatalf("err = %v, want too long: %v", err, tt.tooLong)
			}
			if !tt.tooLong && got != tt.body {
				t.Errorf("read %q, want the whole body", got)
			}
			if !strings.HasPrefix(tt.body, got) {
				t.Errorf("read %q, not a prefix of the body", got)
			}
		})
	}
}

func TestBoundChoosesTheBoundsOfTheResponse(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		contentType string
		stream      bool
		max         int64
		eventMax    int64
		malformed   bool
	}{
		{"a body", 200, "application/json", false, MaxBodyBytes, 0, false},
		{"an error body", 429, "application/json", false, MaxErrorBytes, 0, false},
		{"a streamed error body", 500, "text/html", true, MaxErrorBytes, 0, false},
		{"a stream", 200, "text/event-stream; charset=utf-8", true, MaxStreamBytes, MaxEventBytes, false},
		{"a stream that does not say its type", 200, "", true, MaxStreamBytes, MaxEventBytes, false},
		{"a stream answered with a web page", 200, "text/html", true, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &http.Response{StatusCode: tt.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("<html>"))}
			if tt.contentType != "" {
				res.Header.Set("Content-Type", tt.contentType)
			}
			Bound(res, tt.stream)
			b := res.Body.(*bounded)
			_, err := io.ReadAll(b)
			if got := errors.Is(err, ErrNotEventStream); got != tt.malformed {
				t.Fatalf("err = %v, want malformed: %v", err, tt.malformed)
			}
			if !tt.malformed && (b.max != tt.max || b.eventMax != tt.eventMax) {
				t.Errorf("bounds %d, %d per event; want %d, %d", b.max, b.eventMax, tt.max, tt.eventMax)
			}
		})
	}
}

// eventSizes is how the SDKs' decoders see body: the bytes of each
// event's lines (each line without its '\n' and one '\r' before it),
// an empty line ending the event. It reports whether any event holds
// more than eventMax.
func eventPast(body []byte, eventMax int64) bool {
	var event int64
	for _, line := range bytes.Split(body, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			event = 0
			continue
		}
		if event += int64(len(line)); event > eventMax {
			return true
		}
	}
	return false
}

func FuzzBoundedEvents(f *testing.F) {
	for _, s := range []string{
		"data: 12\n\ndata: 34\n\n", "data: 1\ndata: 2\n", "\r\r\n\r\n", "data: 12\n\r\r\ndata: 34\n\n",
		"event: ping\r\ndata: {}\r\n\r\n", "\r", "x\r\r\r\n",
	} {
		f.Add([]byte(s), uint8(8))
	}
	f.Fuzz(func(t *testing.T, body []byte, max uint8) {
		eventMax := int64(max) + 1
		got, err := readBounded(string(body), 1<<20, eventMax)
		want := eventPast(body, eventMax)
		if errors.Is(err, ErrTooLong) != want || (err != nil && !errors.Is(err, ErrTooLong)) {
			t.Fatalf("err = %v, want too long: %v", err, want)
		}
		if !bytes.HasPrefix(body, []byte(got)) || (!want && got != string(body)) {
			t.Fatalf("read %q of %q", got, body)
		}
	})
}
