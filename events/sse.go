package events

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// sseWriteTimeout bounds how long one event may take to reach a client,
// and sseCloseTimeout the end of the response once it has ended.
// sseRetry is the reconnection delay ServeHTTP asks clients for.
const (
	sseWriteTimeout = 10 * time.Second
	sseCloseTimeout = time.Second
	sseRetry        = time.Second
)

// ServeHTTP streams the session's notifications as Server-Sent Events
// ("id: <viewCursor>", "event: <method>", "data: <the frame>"), starting
// with "retry: 1000" and a ": keep-alive" comment every [WithKeepAlive].
// It resumes after the cursor in Last-Event-ID, else the "cursor" query
// parameter, else from the start: a cursor from another history gets 410
// Gone, any other bad one 400, a closed stream 503. A browser (a GET that
// accepts text/html, not text/event-stream) gets the live page, which
// follows the same URL. The response ends with the request's context,
// when the stream closes (the body then ends cleanly), or when a client
// takes more than 10 s to accept one event.
func (s *Stream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Details. The live page is one self-contained document (no external
	// resources) showing each turn's state, retries with a countdown,
	// ledger rows and outcome; it resumes with Last-Event-ID, shows
	// nothing twice, and starts over on 410. Text from the stream is
	// shown as text, never markup; its Content-Security-Policy allows
	// only its own script and style and connections to this origin. A
	// slow client holds at most two goroutines, one frame and the
	// connection's buffers, for at most the write deadline past its last
	// read; the end of the body reaches the client within one second.
	if wantsPage(r) {
		servePage(w, r)
		return
	}
	c := r.Header.Get("Last-Event-ID")
	if c == "" {
		c = r.URL.Query().Get("cursor")
	}
	pos, err := s.position(c)
	switch {
	case errors.Is(err, ErrStale):
		http.Error(w, err.Error(), http.StatusGone)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	select {
	case <-s.done:
		http.Error(w, s.closedErr("subscribe").Error(), http.StatusServiceUnavailable)
		return
	default:
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // ask proxies not to buffer the stream
	h.Add("Vary", "Accept")          // the same URL serves the page
	timeout := s.writeTimeout
	if timeout <= 0 {
		timeout = sseWriteTimeout
	}
	rc := http.NewResponseController(w)
	// When the stream closes or the request ends, the watcher breaks off a
	// write in progress — one blocked on a client that does not read — with
	// a deadline in the past. It never touches an idle response: a past
	// deadline left on the connection would fail the closing chunk net/http
	// writes after ServeHTTP returns, and a reading client would see its
	// body end early.
	var (
		mu             sync.Mutex
		ended, writing bool
		wmu            sync.Mutex // one write at a time: events and keep-alives
	)
	stop, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-s.done:
		case <-r.Context().Done():
		case <-stop:
			return
		}
		mu.Lock()
		defer mu.Unlock()
		ended = true
		if writing {
			_ = rc.SetWriteDeadline(time.Unix(1, 0)) // in the past: the blocked write fails now
		}
	}()
	// send writes b and flushes it under a fresh write deadline; false
	// once the response has ended or the write failed.
	send := func(b []byte) bool {
		wmu.Lock()
		defer wmu.Unlock()
		mu.Lock()
		if ended {
			mu.Unlock()
			return false
		}
		writing = true
		_ = rc.SetWriteDeadline(time.Now().Add(timeout))
		mu.Unlock()
		var err error
		if len(b) > 0 {
			_, err = w.Write(b)
		}
		if ferr := rc.Flush(); err == nil && !errors.Is(ferr, http.ErrNotSupported) {
			err = ferr // a writer without Flush is written to as is
		}
		mu.Lock()
		writing = false
		mu.Unlock()
		return err == nil
	}
	newTicker := s.ticker
	if newTicker == nil {
		newTicker = func(d time.Duration) (<-chan time.Time, func()) {
			t := time.NewTicker(d)
			return t.C, t.Stop
		}
	}
	tick, stopTick := newTicker(s.keepAlive)
	kaStop, kaExited := make(chan struct{}), make(chan struct{})
	defer func() {
		close(kaStop)
		<-kaExited // no keep-alive is written after ServeHTTP returns
		stopTick()
		close(stop)
		<-exited // nothing else touches rc from here on
		// A fresh deadline for the closing chunk: a reading client gets a
		// clean end, a stalled one is dropped soon. A writer without
		// deadlines (ErrNotSupported) is left as is.
		_ = rc.SetWriteDeadline(time.Now().Add(min(timeout, sseCloseTimeout)))
	}()
	w.WriteHeader(http.StatusOK)
	if !send([]byte("retry: " + strconv.FormatInt(sseRetry.Milliseconds(), 10) + "\n\n")) {
		close(kaExited)
		return
	}
	go func() {
		defer close(kaExited)
		for {
			select {
			case <-kaStop:
				return
			case <-tick:
				if !send([]byte(": keep-alive\n\n")) {
					return
				}
			}
		}
	}()
	var buf []byte
	_ = s.follow(r.Context(), pos, func(e *entry) bool {
		buf = append(buf[:0], "id: "...)
		buf = append(buf, e.cursor...)
		buf = append(buf, "\nevent: "...)
		buf = append(buf, e.n.Method...)
		buf = append(buf, "\ndata: "...)
		buf = append(buf, e.frame...)
		buf = append(buf, "\n\n"...)
		return send(buf)
	})
}

// sseEvent is one parsed Server-Sent Event.
type sseEvent struct {
	id, event string
	data      []byte
}

// maxSSELine bounds one line of an event stream.
const maxSSELine = 1 << 20

// ReadSSE reads an event stream written by Stream.ServeHTTP (any
// text/event-stream is parsed by the SSE rules: fields id, event, data,
// comments, CR/LF/CRLF line ends) and yields each event's data decoded as
// a Notification; n.Cursor() is then the value to resume from. It ends at
// the end of r, or after yielding the first error (a line over 1 MiB, data
// that is not a JSON-RPC frame, a read error).
func ReadSSE(r io.Reader) iter.Seq2[Notification, error] {
	return func(yield func(Notification, error) bool) {
		for ev, err := range readSSE(r) {
			if err != nil {
				yield(Notification{}, &Error{Op: "read sse", Err: err})
				return
			}
			var n Notification
			if err := json.Unmarshal(ev.data, &n); err != nil || n.JSONRPC != "2.0" || n.Method == "" {
				if err == nil {
					err = errors.New("data is not a JSON-RPC 2.0 notification")
				}
				yield(Notification{}, &Error{Op: "read sse", Detail: "event " + ev.id, Err: err})
				return
			}
			if !yield(n, nil) {
				return
			}
		}
	}
}

// readSSE parses an event stream into events with data, per the HTML
// standard's event-stream interpretation (minus retry, which it ignores).
func readSSE(r io.Reader) iter.Seq2[sseEvent, error] {
	return func(yield func(sseEvent, error) bool) {
		br := bufio.NewReader(r)
		var (
			ev      sseEvent
			data    []byte
			hasData bool
			lastID  string
			line    []byte
		)
		skipLF := false
		for {
			line = line[:0]
			// Read up to CR, LF or CRLF.
			for {
				b, err := br.ReadByte()
				if err != nil {
					if err == io.EOF {
						return // an unterminated event is discarded, as the standard says
					}
					yield(sseEvent{}, err)
					return
				}
				if skipLF {
					skipLF = false
					if b == '\n' {
						continue
					}
				}
				if b == '\r' {
					skipLF = true
					break
				}
				if b == '\n' {
					break
				}
				if len(line) >= maxSSELine {
					yield(sseEvent{}, errors.New("event stream line too long"))
					return
				}
				line = append(line, b)
			}
			if len(line) == 0 { // dispatch
				if hasData {
					ev.id = lastID
					ev.data = bytes.TrimSuffix(data, []byte("\n"))
					if !yield(ev, nil) {
						return
					}
				}
				ev, data, hasData = sseEvent{}, nil, false
				continue
			}
			if line[0] == ':' {
				continue
			}
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "event":
				ev.event = string(value)
			case "data":
				data = append(data, value...)
				data = append(data, '\n')
				hasData = true
				if len(data) > maxSSELine {
					yield(sseEvent{}, errors.New("event stream event too long"))
					return
				}
			case "id":
				if bytes.IndexByte(value, 0) < 0 {
					lastID = string(value)
				}
			}
		}
	}
}
