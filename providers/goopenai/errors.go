package goopenai

import (
	"context"
	"errors"
	"net/http"
	"strings"

	sdk "github.com/sashabaranov/go-openai"

	"github.com/enforcer-go/enforcer/providers/internal/openaiwire"
)

// failure maps a failed call to *agent.ProviderError. raw is the HTTP
// response, when one arrived: its status and Retry-After classify the
// failure. go-openai returns *openai.APIError for an error body it
// decoded, *openai.RequestError for one it did not (its text is the
// message then), and the same *openai.APIError, with no status, for an
// error event inside a stream, which is classified by its error type.
func failure(ctx context.Context, err error, raw *http.Response) error {
	if raw != nil && raw.StatusCode >= 400 {
		// go-openai reads an error body but never closes it.
		raw.Body.Close()
	}
	var apiErr *sdk.APIError
	isAPI := errors.As(err, &apiErr)
	if isAPI && apiErr.HTTPStatusCode == 0 && ctx.Err() == nil {
		return eventFailure(apiErr)
	}
	message, param := "", ""
	var reqErr *sdk.RequestError
	switch {
	case isAPI:
		message = apiErr.Message
		if apiErr.Param != nil {
			param = *apiErr.Param
		}
	case errors.As(err, &reqErr):
		message = bodyText(reqErr.Body)
	}
	return openaiwire.Failure(ctx, System, err, raw, message, param)
}

// bodyText is the start of an error body that was not the provider's JSON
// (a proxy's HTML page, say), with whitespace collapsed, as wire.Failure
// reads one: go-openai has read the body already.
func bodyText(body []byte) string {
	return strings.Join(strings.Fields(string(body[:min(len(body), 512)])), " ")
}

// eventFailure classifies an error sent mid-stream, a data line holding
// {"error": {"type", "code", "message"}} after the 200 began the stream.
func eventFailure(e *sdk.APIError) error {
	return openaiwire.EventFailure(System, e.Type, e.Code, e.Message, e)
}
