package goopenai

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	sdk "github.com/sashabaranov/go-openai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
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
	if ctx.Err() == nil && errors.Is(err, wire.ErrNotEventStream) && raw != nil && isJSON(raw.Header.Get("Content-Type")) {
		return notStreamed(err, raw)
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
	return wire.Unsupported(wire.Failure(ctx, System, err, raw, message), message+" "+param, nativeWords, toolWords)
}

// bodyText is the start of an error body that was not the provider's JSON
// (a proxy's HTML page, say), with whitespace collapsed, as wire.Failure
// reads one: go-openai has read the body already.
func bodyText(body []byte) string {
	return strings.Join(strings.Fields(string(body[:min(len(body), 512)])), " ")
}

// nativeWords and toolWords are what a 400 names when the endpoint
// refuses the request's output mode (agent.ProviderError.Unsupported), as
// providers/openai reads them.
var (
	nativeWords = []string{"response_format", "response format", "json_schema"}
	toolWords   = []string{"tools", "tool_choice", "tool choice", "function calling"}
)

// eventFailure classifies an error sent mid-stream, a data line holding
// {"error": {"type", "code", "message"}} after the 200 began the stream.
func eventFailure(e *sdk.APIError) error {
	status := errorStatus[e.Type]
	if code, ok := e.Code.(string); ok && status == 0 {
		status = errorStatus[code]
	}
	return wire.EventFailure(System, status, e.Message, e)
}

// errorStatus is the HTTP status that comes with each error type (or
// code) OpenAI sends, for an error that arrives inside a stream instead.
var errorStatus = map[string]int{
	"invalid_request_error": http.StatusBadRequest,
	"invalid_api_key":       http.StatusUnauthorized,
	"requests":              http.StatusTooManyRequests,
	"tokens":                http.StatusTooManyRequests,
	"rate_limit_exceeded":   http.StatusTooManyRequests,
	"server_error":          http.StatusInternalServerError,
}

// notStreamed is the failure of a stream the server answered with a whole
// JSON reply: a malformed response whose message says what came and how
// to ask for whole replies instead.
func notStreamed(err error, raw *http.Response) error {
	return &agent.ProviderError{
		System: System, Kind: events.KindUnknown, HTTPStatus: raw.StatusCode,
		Message: fmt.Sprintf("this server does not stream: it answered a streamed request with Content-Type %q, not text/event-stream; "+
			"the adapter's WithoutStreaming option sends every request unstreamed", raw.Header.Get("Content-Type")),
		Err: err,
	}
}

// isJSON reports a JSON media type: application/json, or one ending in +json.
func isJSON(contentType string) bool {
	t, _, err := mime.ParseMediaType(contentType)
	return err == nil && (t == "application/json" || strings.HasSuffix(t, "+json"))
}
