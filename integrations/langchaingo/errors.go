package langchaingo

import (
	"context"
	"errors"

	"github.com/tmc/langchaingo/llms"

	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/integrations/internal/glue"
)

// failure maps a failed call of a langchaingo model or chain.
// langchaingo's providers return text: the HTTP status is read from the
// words they put it in ("API returned unexpected status code: 429: …",
// see glue.StatusInText), and an *llms.Error's code names a kind where
// a provider maps its errors to one. What langchaingo drops cannot be
// known: the Retry-After header (a retry waits as its policy says), and
// the status of a provider whose error text does not say it (Google's,
// Bedrock's, whose SDK errors are read by their shape alone).
func failure(ctx context.Context, err error) error {
	var known glue.Known
	var le *llms.Error
	if errors.As(err, &le) {
		known.Kind = codeKind[le.Code]
	}
	return glue.Failure(ctx, System, err, known)
}

// codeKind maps langchaingo's error codes to kinds; a code not here
// says nothing a retry could use.
var codeKind = map[llms.ErrorCode]events.ErrorKind{
	llms.ErrCodeRateLimit:           events.KindRateLimit,
	llms.ErrCodeProviderUnavailable: events.KindOverloaded,
	llms.ErrCodeTimeout:             events.KindTimeout,
	llms.ErrCodeAuthentication:      events.KindAuth,
	llms.ErrCodeInvalidRequest:      events.KindBadRequest,
	llms.ErrCodeResourceNotFound:    events.KindBadRequest,
	llms.ErrCodeTokenLimit:          events.KindBadRequest,
	llms.ErrCodeContentFilter:       events.KindBadRequest,
	// A spent quota comes back as 429 too, but waiting does not refill it.
	llms.ErrCodeQuotaExceeded: events.KindBadRequest,
}
