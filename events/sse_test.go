package events

import (
	"bufio"
	"context"
	"errors"
	"io"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestServeHTTPResumesAfterTheLastEventIDExactlyOnce(t *testing.T) {
	s, _ := appendAll(t, nil)
	srv := httptest.NewServer(s)
	defer srv.Close()
	appendStarts(t, s, 5)

	seen := map[int64]int{}
	var last string
	resp := get(t, srv.URL, "")
	next, stop := iter.Pull2(ReadSSE(resp.Body))
	for range 3 {
		n, err, ok := next()
		if err != nil || !ok {
			t.Fatalf("stream ended early: %v", err)
		}
		seen[seqOf(t, n)]++
		last = n.Cursor()
	}
	stop()
	resp.Body.Close() // disconnect mid-stream

	appendStarts(t, s, 3)
	resp = get(t, srv.URL, last)
	defer resp.Body.Close()
	next, stop = iter.Pull2(ReadSSE(resp.Body))
	defer stop()
	for range 5 {
		n, err, ok := next()
		if err != nil || !ok {
			t.Fatalf("stream ended early: %v", err)
		}
		seen[seqOf(t, n)]++
	}
	appendStarts(t, s, 1) // and live ones keep coming
	n, err, ok := next()
	if err != nil || !ok {
		t.Fatal(err)
	}
	seen[seqOf(t, n)]++
	for seq := int64(1); seq <= 9; seq++ {
		if seen[seq] != 1 {
			t.Errorf("record %d delivered %d times; all: %v", seq, seen[seq], seen)
		}
	}
}

func TestServeHTTPWritesIDEventAndData(t *testing.T) {
	s, ns := appendAll(t, transcript()[:2])
	srv := httptest.NewServer(s)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "?cursor=" + url.QueryEscape(ns[0].Cursor()))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	var lines []string
	for range 6 {
		l, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	want := []string{
		"retry: 1000\n", // reconnect after a second
		"\n",
		"id: " + ns[1].Cursor() + "\n",
		"event: turn/modelRetryScheduled\n",
		"data: " + string(frameBytes(t, ns[1])) + "\n",
		"\n",
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d = %q, want %q", i+1, lines[i], want[i])
		}
	}
}

func TestServeHTTPRefusesABadCursor(t *testing.T) {
	s, _ := appendAll(t, nil)
	srv := httptest.NewServer(s)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "?cursor=nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("got %s, want 400", resp.Status)
	}
}

func TestServeHTTPEndsWithTheRequest(t *testing.T) {
	s, _ := appendAll(t, transcript())
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequestWithContext(ctx, "GET", "/", nil)
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		s.ServeHTTP(rec, req)
		close(done)
	}()
	for { // wait until it is live, then hang up
		s.mu.Lock()
		n := len(s.subs)
		s.mu.Unlock()
		if n > 0 {
			break
		}
		runtime.Gosched()
	}
	cancel()
	<-done
	var got int
	for _, err := range ReadSSE(rec.Body) {
		if err != nil {
			t.Fatal(err)
		}
		got++
	}
	if want := len(transcript()); got > want {
		t.Errorf("got %d events, at most %d exist", got, want)
	}
}

func TestReadSSE(t *testing.T) {
	frame := `{"jsonrpc":"2.0","method":"turn/started","params":{"viewCursor":"c1"}}`
	tests := []struct {
		name, in string
		want     []string // cursors
		wantErr  bool
	}{
		{"LF line ends", "id: c1\nevent: turn/started\ndata: " + frame + "\n\n", []string{"c1"}, false},
		{"CRLF line ends and comments", ": hi\r\nid: c1\r\ndata: " + frame + "\r\n\r\n", []string{"c1"}, false},
		{"CR line ends", "data: " + frame + "\r\r", []string{"c1"}, false},
		{"data split over lines", "data: {\"jsonrpc\":\"2.0\",\ndata: \"method\":\"m\",\"params\":{\"viewCursor\":\"c2\"}}\n\n", []string{"c2"}, false},
		{"an event without data is skipped", "id: x\nevent: ping\n\n", nil, false},
		{"an unterminated last event is discarded", "data: " + frame + "\n", nil, false},
		{"data that is not a frame is an error", "data: [1]\n\n", nil, true},
		{"a huge line is an error", "data: " + strings.Repeat("x", maxSSELine+1) + "\n\n", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			var gotErr error
			for n, err := range ReadSSE(strings.NewReader(tt.in)) {
				if err != nil {
					gotErr = err
					continue
				}
				got = append(got, n.Cursor())
			}
			if (gotErr != nil) != tt.wantErr || strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("got %v, %v; want %v, error %v", got, gotErr, tt.want, tt.wantErr)
			}
			var e *Error
			if gotErr != nil && !errors.As(gotErr, &e) {
				t.Errorf("error %v is not an *Error", gotErr)
			}
		})
	}
}

// smallBuffers shrinks the send buffer of each accepted connection, so a
// server writing to a client that does not read blocks after a few
// kilobytes rather than megabytes (with the client's small receive
// buffer).
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(8 << 10)
	}
	return c, err
}

// stalledClient serves s over loopback to a client that reads the
// response headers and the first event, then never reads again. The
// returned channel closes when ServeHTTP returns. Far more is recorded
// than the connection can buffer, so ServeHTTP is then blocked writing:
// s keeps one notification in memory, so the handler is in its catch-up
// from the log, which writes to the end of the log without pausing.
func stalledClient(t *testing.T, s *Stream) <-chan struct{} {
	t.Helper()
	big := strings.Repeat("x", maxText)
	for range 20 { // ~640 KiB of frames, ten times what loopback buffers here
		if _, err := s.Append(SchemaRetry{TurnID: "t", Attempt: 1, Iteration: 1, Stage: "json-parse",
			Error: big, Path: big, CorrectiveMessageHash: "0123abcd"}); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(done)
		s.ServeHTTP(w, r)
	}))
	srv.Listener = smallBuffers{srv.Listener}
	srv.Start()
	t.Cleanup(srv.Close)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })         // runs before srv.Close, which waits for handlers
	conn.(*net.TCPConn).SetReadBuffer(4 << 10) // and no receive-buffer autotuning
	if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: events\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body := bufio.NewReader(resp.Body)
	for inEvent := false; ; { // the first event: ServeHTTP is in its write loop
		line, err := body.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, "id: ") {
			inEvent = true
		}
		if line == "\n" && inEvent {
			break
		}
	}
	return done
}

// waitDone fails the test if done does not close within a bound far
// above what the behaviour needs; it is a failure bound, not a sleep.
func waitDone(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("ServeHTTP still running 30s %s", what)
	}
}

// newSmallStream is a stream that keeps one notification in memory.
func newSmallStream(t *testing.T) *Stream {
	t.Helper()
	s, err := NewStream(testSession, NewMemoryLog(), WithBuffer(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestServeHTTPEndsWhenTheStreamClosesWhileAClientIsNotReading(t *testing.T) {
	s := newSmallStream(t)
	s.writeTimeout = time.Hour // only the close can end it
	done := stalledClient(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	waitDone(t, done, "after Stream.Close")
}

func TestServeHTTPGivesUpOnAClientThatStopsReading(t *testing.T) {
	s := newSmallStream(t)
	s.writeTimeout = 50 * time.Millisecond // the per-write deadline
	done := stalledClient(t, s)
	waitDone(t, done, "past its write deadline")
}

// A client reading an idle response sees it end cleanly when the stream
// closes: the close cuts only a write in progress, and the closing chunk
// of the body still reaches the client. Cutting an idle response lost that
// chunk in about a third of the rounds, so a few dozen rounds catch it.
func TestServeHTTPEndsCleanlyForAReadingClientWhenTheStreamCloses(t *testing.T) {
	for round := range 30 {
		s, ns := appendAll(t, transcript())
		srv := httptest.NewServer(s)
		resp := get(t, srv.URL, "")
		next, stop := iter.Pull2(ReadSSE(resp.Body))
		for range ns { // every event read: the handler is idle, waiting for more
			if _, err, ok := next(); err != nil || !ok {
				t.Fatalf("round %d: stream ended early: %v", round, err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if n, err, ok := next(); ok {
			t.Fatalf("round %d: after Close got %q, %v; want the end of the stream", round, n.Method, err)
		}
		stop()
		resp.Body.Close()
		srv.Close()
	}
}
