package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/enforcer-go/enforcer/providers/internal/openaiwire"
)

// failure maps a failed call to *agent.ProviderError. raw is the last HTTP
// response, when one arrived: the SDK returns a plain error, not *sdk.Error,
// for an error body that is not JSON, and the status must survive that.
// An error event inside a stream is classified by its error type.
func failure(ctx context.Context, err error, raw *http.Response) error {
	var se *ssestream.StreamError
	if errors.As(err, &se) && ctx.Err() == nil {
		return eventFailure(se)
	}
	message, param := "", ""
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		message, param = apiErr.Message, apiErr.Param
		if apiErr.Response != nil {
			raw = apiErr.Response
		}
	}
	return openaiwire.Failure(ctx, System, err, raw, message, param)
}

// eventFailure classifies an error sent mid-stream, a data line holding
// {"error": {"type", "code", "message"}} after the 200 began the stream.
func eventFailure(se *ssestream.StreamError) error {
	var ev struct {
		Error struct {
			Type    string `json:"type"`
			Code    any    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(se.Event.Data, &ev) != nil || ev.Error.Message == "" {
		ev.Error.Message = se.Message
	}
	return openaiwire.EventFailure(System, ev.Error.Type, ev.Error.Code, ev.Error.Message, se)
}
