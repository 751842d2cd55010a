package gemini

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"

	"google.golang.org/genai"
)

// DefaultMaxReplyBytes bounds what the adapter reads of a reply, from the
// socket up: a whole body (Generate's), or one event of a stream
// (GenerateStream's, whose events together are bounded at 16 times as
// much). It leaves room for the agent's own bound on an answer
// (enforce.MaxAnswerBytes, 4 MiB), JSON escapes included.
const DefaultMaxReplyBytes = 8 << 20

// streamBoundFactor is how many times the reply bound a whole stream may
// hold: events that carry little (usage alone, empty text) still end.
const streamBoundFactor = 16

// maxErrorBytes bounds an error body (a non-2xx status's): Gemini's are a
// few hundred bytes, details included.
const maxErrorBytes = 64 << 10

// ErrReplyTooLarge is what a reply past its bound fails with, inside the
// *agent.ProviderError (Kind unknown, or the kind of its status for an
// error body): the adapter stopped reading it there.
var ErrReplyTooLarge = errors.New("gemini: reply larger than its bound")

// WithMaxReplyBytes sets the reply bound (default [DefaultMaxReplyBytes]):
// n bytes of a whole body, or of one event of a stream; a stream's events
// together are bounded at 16·n. An n below 1 KiB is an invalid option.
func WithMaxReplyBytes(n int) Option {
	return optionFunc(func(m *Model) {
		if n < 1<<10 {
			m.opts.Invalid("WithMaxReplyBytes(%d): want at least 1024", n)
			return
		}
		m.maxReply = int64(n)
	})
}

// boundedClient is a client made from cfg whose HTTP client's transport
// bounds each body the adapter's calls read. cfg comes from a client
// already made, so its HTTP client is the one that client sends with
// (authorization included, for Vertex AI).
func boundedClient(cfg genai.ClientConfig, max int64) (*genai.Client, error) {
	hc := http.Client{}
	if cfg.HTTPClient != nil {
		hc = *cfg.HTTPClient
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = &boundedTransport{base: base}
	cfg.HTTPClient = &hc
	return genai.NewClient(context.Background(), &cfg)
}

// call is what the transport saw of one model call's HTTP response: the
// SDK keeps neither the status of an error nor why a body ended.
type call struct {
	max int64

	mu       sync.Mutex
	status   int
	header   http.Header
	tooLarge bool  // the body went past its bound
	readErr  error // the body broke: a transport failure, not the provider's words
}

type callKey struct{}

// withCall returns ctx carrying a new call, which the transport fills in.
func withCall(ctx context.Context, max int64) (context.Context, *call) {
	c := &call{max: max}
	return context.WithValue(ctx, callKey{}, c), c
}

func (c *call) seen() (status int, header http.Header, tooLarge bool, readErr error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status, c.header, c.tooLarge, c.readErr
}

// boundedTransport wraps each response body of an adapter's call in a
// bounded reader.
type boundedTransport struct{ base http.RoundTripper }

func (t *boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.base.RoundTrip(req)
	c, ok := req.Context().Value(callKey{}).(*call)
	if err != nil || !ok {
		return res, err
	}
	c.mu.Lock()
	c.status, c.header = res.StatusCode, res.Header
	c.mu.Unlock()
	b := &boundedBody{rc: res.Body, c: c, bound: c.max}
	mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	switch {
	case res.StatusCode < 200 || res.StatusCode > 299:
		b.bound = maxErrorBytes
	case mt == "text/event-stream":
		b.bound, b.event = c.max*streamBoundFactor, c.max
	}
	b.left = b.bound
	res.Body = b
	return res, nil
}

// boundedBody reads a body up to its bound, and for a stream each event
// up to the event bound; past either it fails with ErrReplyTooLarge. It
// notes a transport failure, so that a body that ends mid-event is told
// from one that is not the provider's format.
type boundedBody struct {
	rc      io.ReadCloser
	c       *call
	bound   int64 // bytes the whole body may hold
	left    int64 // bytes it may still hold
	event   int64 // an event's bound; 0 when the body is not a stream
	inEvent int64 // bytes of the event so far
	inLine  bool  // the line so far holds a byte other than \r
	failed  error
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.failed != nil {
		return 0, b.failed
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1] // one byte past the bound tells a body that ends there
	}
	n, err := b.rc.Read(p)
	if int64(n) > b.left {
		n = int(b.left)
		err = b.fail(b.bound)
	}
	b.left -= int64(n)
	if b.event > 0 {
		for i, ch := range p[:n] {
			switch ch {
			case '\n':
				if !b.inLine {
					b.inEvent = 0 // a blank line ends the event
				}
				b.inLine = false
			case '\r':
			default:
				b.inLine = true
				if b.inEvent++; b.inEvent > b.event {
					return i, b.fail(b.event)
				}
			}
		}
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, ErrReplyTooLarge) {
		b.c.mu.Lock()
		b.c.readErr = err
		b.c.mu.Unlock()
	}
	return n, err
}

func (b *boundedBody) fail(bound int64) error {
	b.c.mu.Lock()
	b.c.tooLarge = true
	b.c.mu.Unlock()
	b.failed = fmt.Errorf("%w of %d bytes", ErrReplyTooLarge, bound)
	return b.failed
}

func (b *boundedBody) Close() error { return b.rc.Close() }
