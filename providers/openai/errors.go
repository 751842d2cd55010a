package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
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
	if ctx.Err() == nil && errors.Is(err, wire.ErrNotEventStream) && raw != nil && isJSON(raw.Header.Get("Content-Type")) {
		return notStreamed(err, raw)
	}
	message, param := "", ""
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		message, param = apiErr.Message, apiErr.Param
		if apiErr.Response != nil {
			raw = apiErr.Response
		}
	}
	return wire.Unsupported(wire.Failure(ctx, System, err, raw, message), message+" "+param, nativeWords, toolWords)
}

// nativeWords and toolWords are what a 400 names when the endpoint
// refuses the request's output mode (agent.ProviderError.Unsupported):
// its response format, or its tools (OpenAI sets param to
// "response_format" or "tools"; the compatible servers say it in their
// message, as Groq's "does not support response format json_schema").
var (
	nativeWords = []string{"response_format", "response format", "json_schema"}
	toolWords   = []string{"tools", "tool_choice", "tool choice", "function calling"}
)

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
	status := errorStatus[ev.Error.Type]
	if code, ok := ev.Error.Code.(string); ok && status == 0 {
		status = errorStatus[code]
	}
	return wire.EventFailure(System, status, ev.Error.Message, se)
}

// errorStatus is the HTTP status that comes with each error type (or
// code) OpenAI sends, for an error that arrives inside a stream instead.
// Rate limits come as type "requests" or "tokens", code
// "rate_limit_exceeded".
var errorStatus = map[string]int{
	"invalid_request_error": http.StatusBadRequest,
	"invalid_api_key":       http.StatusUnauthorized,
	"requests":              http.StatusTooManyRequests,
	"tokens":                http.StatusTooManyRequests,
	"rate_limit_exceeded":   http.StatusTooManyRequests,
	"server_error":          http.StatusInternalServerError,
}

// notStreamed is the failure of a stream the server answered with a whole
// JSON reply, as many OpenAI-compatible servers do: a malformed response,
// as for any success body that is not an event stream, whose message says
// what came and how to ask for whole replies instead.
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
