package anthropic

import (
	"context"
	"errors"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/enforcer-go/enforcer/providers/internal/wire"
)

// failure maps a failed call to *agent.ProviderError. raw is the last HTTP
// response, when one arrived: the SDK returns a plain error, not *sdk.Error,
// for an error body that is not JSON, and the status must survive that.
func failure(ctx context.Context, err error, raw *http.Response) error {
	message := ""
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		message = apiErr.Message
		if apiErr.Response != nil {
			raw = apiErr.Response
		}
	}
	return wire.Failure(ctx, System, err, raw, message)
}
