package wire

import (
	"fmt"
	"net/http"

	"github.com/enforcer-go/enforcer/agent"
)

// Options holds what every adapter's options set alike: the first
// invalid option's error, whether the client's own retries are kept, and
// the caller's adjustments of each request's P (the SDK's params or
// config type). An adapter keeps one in an unexported field, so that
// none of it shows in the adapter's API; its exported options set it.
type Options[P any] struct {
	// System names the adapter in an invalid option's error.
	System string
	// ClientRetries is the adapter's WithClientRetries: the SDK's own
	// retries stay as the client has them.
	ClientRetries bool
	adjust        []func(*P)
	err           error
}

// Invalid records an invalid option. Only the first counts, so that an
// error names the option a caller wrote first; options never panic, the
// adapter's calls return [Options.Err] instead.
func (o *Options[P]) Invalid(format string, args ...any) {
	if o.err == nil {
		o.err = fmt.Errorf("%w: %s: "+format, append([]any{agent.ErrInvalidOption, o.System}, args...)...)
	}
}

// Err is the first invalid option's error, matching
// agent.ErrInvalidOption; nil when every option was valid.
func (o *Options[P]) Err() error { return o.err }

// Adjust adds f, the option named option ("WithParams"), to what runs on
// every request's parameters. A nil f is an invalid option.
func (o *Options[P]) Adjust(option string, f func(*P)) {
	if f == nil {
		o.Invalid("%s(nil)", option)
		return
	}
	o.adjust = append(o.adjust, f)
}

// Apply runs the adjustments on p in the order the options came, after
// the adapter has set what it maps, so that the caller has the last word.
func (o *Options[P]) Apply(p *P) {
	for _, f := range o.adjust {
		f(p)
	}
}

// SDK names the request option constructors of an SDK whose request
// options are R. The OpenAI and Anthropic SDKs' option packages spell
// them alike (WithResponseInto, WithMaxRetries, WithMiddleware).
type SDK[R any] struct {
	ResponseInto func(**http.Response) R
	MaxRetries   func(int) R
	Middleware   func(...func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error)) R
}

// RequestOptions are the options of every request: the HTTP response
// kept in raw for the failure's status ([Failure] needs it when the SDK
// returns a plain error), the SDK's retries off unless clientRetries
// (retries belong to agent.WithModelRetry, which records each one), then
// the caller's, and last the bounds on what is read of the response
// ([Middleware]), nearest the socket.
func (s SDK[R]) RequestOptions(raw **http.Response, clientRetries bool, caller []R, stream bool) []R {
	opts := make([]R, 0, len(caller)+3)
	opts = append(opts, s.ResponseInto(raw))
	if !clientRetries {
		opts = append(opts, s.MaxRetries(0))
	}
	opts = append(opts, caller...)
	return append(opts, s.Middleware(Middleware(stream)))
}
