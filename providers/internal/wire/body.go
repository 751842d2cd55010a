package wire

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
)

// The most of one response an adapter reads. Past a bound the read fails
// with an error matching [ErrTooLong], which [Failure] classifies: no
// reply is read past a bound, from the socket up.
const (
	// MaxBodyBytes bounds a whole response body: eight times
	// enforce.MaxAnswerBytes, room for the JSON escapes and envelope of
	// the largest reply the agent reads.
	MaxBodyBytes = 32 << 20
	// MaxEventBytes bounds one server-sent event of a stream, its data
	// lines together (the SDKs' decoders keep an event whole until it
	// ends): twice enforce.MaxAnswerBytes, room for one event that
	// carries a whole reply, escaped.
	MaxEventBytes = 8 << 20
	// MaxStreamBytes bounds a streamed body in all, so that events the
	// adapter reads past (pings, thinking, other choices) cannot run
	// without end either.
	MaxStreamBytes = 256 << 20
	// MaxErrorBytes bounds the body of an error response (status 400 and
	// up): it is read whole for the provider's message.
	MaxErrorBytes = 1 << 20
)

// ErrTooLong is matched by the error of a response read past a bound.
var ErrTooLong = errors.New("response longer than its bound")

// tooLong is a response read to a bound: what passed it, and the bound.
type tooLong struct {
	what string
	max  int64
}

func (e *tooLong) Error() string {
	if e.max%(1<<20) == 0 {
		return fmt.Sprintf("%s longer than %d MiB", e.what, e.max>>20)
	}
	return fmt.Sprintf("%s longer than %d bytes", e.what, e.max)
}

func (e *tooLong) Is(target error) bool { return target == ErrTooLong }

// ErrNotEventStream is matched by the failure of a stream whose success
// response is not a text/event-stream: a proxy's HTML page, say, which is
// classified as the same body is for a call that is not streamed, a
// malformed response; or a whole JSON reply from a server that does not
// stream, which an adapter may tell its caller how to avoid.
var ErrNotEventStream = errors.New("response is not an event stream")

// Middleware is the SDKs' middleware (both SDKs' option.Middleware) that
// bounds what is read of each response, as [Bound] does. An adapter adds
// it after every other request option, so that it sits next to the
// socket.
func Middleware(stream bool) func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		res, err := next(req)
		if err == nil {
			Bound(res, stream)
		}
		return res, err
	}
}

// Bound wraps res's body so that it reads no further than its bounds: an
// error body [MaxErrorBytes]; a success body [MaxBodyBytes], or for a
// stream [MaxStreamBytes] in all and [MaxEventBytes] per event. A stream
// whose success response is not a text/event-stream fails at its first
// read, as malformed.
func Bound(res *http.Response, stream bool) {
	if res == nil || res.Body == nil {
		return
	}
	b := &bounded{rc: res.Body, max: MaxBodyBytes, what: "response body"}
	switch {
	case res.StatusCode >= 400:
		b.max, b.what = MaxErrorBytes, "error response body"
	case stream && !eventStream(res.Header.Get("Content-Type")):
		b.err = fmt.Errorf("%w (Content-Type %q)", ErrNotEventStream, res.Header.Get("Content-Type"))
	case stream:
		b.max, b.what, b.eventMax = MaxStreamBytes, "event stream", MaxEventBytes
	}
	res.Body = b
}

// eventStream reports a Content-Type that may be a stream's: an event
// stream, or none said.
func eventStream(contentType string) bool {
	if contentType == "" {
		return true
	}
	t, _, err := mime.ParseMediaType(contentType)
	return err == nil && t == "text/event-stream"
}

// bounded is a response body read no further than max bytes, and when
// eventMax is set no further than eventMax per server-sent event.
type bounded struct {
	rc   io.ReadCloser
	max  int64
	what string
	err  error // once set, every read fails with it

	n        int64 // bytes read
	eventMax int64
	event    int64 // bytes of the event so far
	line     int64 // bytes of the line so far, a pending '\r' aside
	cr       bool  // the line's last byte was '\r' (dropped before '\n')
}

func (b *bounded) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	// One byte past the bound is read, to tell a body of exactly max
	// bytes from a longer one.
	if rest := b.max + 1 - b.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := b.rc.Read(p)
	b.n += int64(n)
	if b.n > b.max {
		b.err = &tooLong{b.what, b.max}
		return 0, b.err
	}
	if b.eventMax > 0 {
		for i, c := range p[:n] {
			if b.scan(c) {
				b.err = &tooLong{"server-sent event", b.eventMax}
				return i, b.err
			}
		}
	}
	return n, err
}

// scan follows the event that byte c continues and reports whether the
// event passed eventMax. An event ends at an empty line; a line ends at
// '\n', one '\r' before it dropped, as the SDKs' line scanners do. The
// event's size is the bytes of its lines, so counted.
func (b *bounded) scan(c byte) bool {
	if c == '\n' {
		if b.line == 0 {
			b.event = 0 // the empty line ends the event
		}
		b.line, b.cr = 0, false
		return false
	}
	grow := int64(1)
	if b.cr {
		grow++ // the '\r' before c was no line end
	}
	b.cr = c == '\r'
	if b.cr {
		grow-- // a '\r' counts once a byte but '\n' follows it
	}
	b.line += grow
	b.event += grow
	return b.event > b.eventMax
}

func (b *bounded) Close() error { return b.rc.Close() }
