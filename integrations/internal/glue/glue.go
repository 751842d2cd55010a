// Package glue holds what the framework integrations share: classifying
// a framework's failed call into *agent.ProviderError. It is internal to
// the integrations.
package glue

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
)

// ErrMalformed is the cause of a reply that arrived but makes no sense.
var ErrMalformed = errors.New("malformed response")

// Known is what a framework's own error types say of a failed call,
// beyond the error's shape: an integration reads them, glue does not
// import the frameworks.
type Known struct {
	Status int              // the HTTP status, 0 when the error carries none
	Kind   events.ErrorKind // a kind the framework names; "" when none
	// RetryAfter is the provider's Retry-After, where the framework's
	// error keeps the response's headers (Genkit's OpenAI-compatible
	// plugin does); 0 when unknown.
	RetryAfter time.Duration
}

// Failure maps a failed call of system's framework to
// *agent.ProviderError. The kind follows, in order, from the HTTP status
// known says or, failing that, the one the error's text reports in the
// words of the clients the frameworks run ([StatusInText]); from the kind
// known names; from the error's shape (a timeout, a lost connection);
// else it is unknown. A status keeps its kind (events.KindForStatus), so
// a 429 or a 503 is retried, after known's RetryAfter where the
// framework kept the response's headers. An error that already is a
// *agent.ProviderError (a framework model written over one of this
// library's adapters) is kept; a done ctx yields its cause.
func Failure(ctx context.Context, system string, err error, known Known) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	var pe *agent.ProviderError
	if errors.As(err, &pe) {
		return err
	}
	status := known.Status
	if status == 0 && err != nil {
		status = StatusInText(err.Error())
	}
	if status < 400 || status > 599 {
		status = 0 // a success or no HTTP status says nothing of the failure
	}
	kind := events.KindUnknown
	var ne net.Error
	var ue *url.Error
	var oe *net.OpError
	switch {
	case status != 0:
		kind = events.KindForStatus(status)
	case known.Kind != "":
		kind = known.Kind
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		kind = events.KindTimeout
	case errors.As(err, &ue) || errors.As(err, &oe) || errors.Is(err, io.ErrUnexpectedEOF):
		kind = events.KindConnection
	}
	return &agent.ProviderError{System: system, Kind: kind, HTTPStatus: status, RetryAfter: max(known.RetryAfter, 0), Err: err}
}

// statusMarkers precede the HTTP status in the errors of the clients the
// frameworks run: langchaingo's providers ("API returned unexpected
// status code: 429: …", "unexpected status code: 503") and go-openai and
// its forks, which eino-ext's OpenAI model runs ("error, status code:
// 429, status: …").
var statusMarkers = []string{"unexpected status code: ", "error, status code: "}

// StatusInText is the HTTP status an error's text reports after one of
// the clients' markers: three digits, then the text's end or a
// non-digit. 0 when the text reports none.
func StatusInText(s string) int {
	for _, m := range statusMarkers {
		for rest := s; ; {
			i := strings.Index(rest, m)
			if i < 0 {
				break
			}
			rest = rest[i+len(m):]
			if n, ok := threeDigits(rest); ok {
				return n
			}
		}
	}
	return 0
}

func threeDigits(s string) (int, bool) {
	if len(s) < 3 || len(s) > 3 && s[3] >= '0' && s[3] <= '9' {
		return 0, false
	}
	n := 0
	for _, c := range []byte(s[:3]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// Malformed is the failure of a reply that arrived but makes no sense.
func Malformed(system, what string) error {
	return &agent.ProviderError{System: system, Kind: events.KindUnknown, Message: "malformed response: " + what, Err: ErrMalformed}
}
