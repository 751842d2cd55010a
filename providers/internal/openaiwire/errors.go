package openaiwire

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
)

// Failure classifies a failed call of system as wire.Failure does, given
// the error body's message and param when the adapter's SDK decoded them:
// a 400 naming the response format or the tools refuses that output mode
// (agent.ProviderError.Unsupported), and a streamed request answered with
// a whole JSON reply says so.
func Failure(ctx context.Context, system string, err error, raw *http.Response, message, param string) error {
	if ctx.Err() == nil && errors.Is(err, wire.ErrNotEventStream) && raw != nil && isJSON(raw.Header.Get("Content-Type")) {
		return notStreamed(system, err, raw)
	}
	return wire.Unsupported(wire.Failure(ctx, system, err, raw, message), message+" "+param, nativeWords, toolWords)
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

// EventFailure classifies an error sent mid-stream, a data line holding
// {"error": {"type", "code", "message"}} after the 200 began the stream,
// by its type, else its code.
func EventFailure(system, typ string, code any, message string, err error) error {
	status := errorStatus[typ]
	if c, ok := code.(string); ok && status == 0 {
		status = errorStatus[c]
	}
	return wire.EventFailure(system, status, message, err)
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
func notStreamed(system string, err error, raw *http.Response) error {
	return &agent.ProviderError{
		System: system, Kind: events.KindUnknown, HTTPStatus: raw.StatusCode,
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
