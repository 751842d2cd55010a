package fantasy

import (
	"context"
	"errors"
	"net/http"

	"charm.land/fantasy"

	"github.com/enforcer-go/enforcer/integrations/internal/glue"
)

// failure maps a failed call of a fantasy model or agent. fantasy's
// providers give a *fantasy.ProviderError that carries the HTTP status
// and the response's headers, so a 429 keeps its Retry-After; a
// *fantasy.RetryError (fantasy's own retries, spent) unwraps to the
// last one. Another error is read by its text and shape (see
// glue.Failure).
func failure(ctx context.Context, err error) error {
	var known glue.Known
	var pe *fantasy.ProviderError
	if errors.As(err, &pe) {
		known.Status = pe.StatusCode
		if len(pe.ResponseHeaders) > 0 {
			known.Header = http.Header{}
			for k, v := range pe.ResponseHeaders {
				known.Header.Set(k, v)
			}
		}
	}
	return glue.Failure(ctx, System, err, known)
}
