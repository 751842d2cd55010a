package openaiwiretest

import (
	"encoding/json"
	"testing"

	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// toolCall is a 200 body whose reply is one call of name with args.
func toolCall(id, name, args string) string {
	a, _ := json.Marshal(args)
	return `{"id":"chatcmpl-4","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini",
"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"` + name + `","arguments":` + string(a) + `}}]}}],
"usage":{"prompt_tokens":30,"completion_tokens":8,"total_tokens":38}}`
}

func (h Harness) testAgentOutputToolThroughTheWire(t *testing.T) {
	wiretest.OutputToolThroughTheWire(t, h.Adapter,
		okReply(toolCall("call_1", "final_result", `{"city":"Paris"}`)), // tempC missing
		okReply(toolCall("call_2", "final_result", `{"city":"Paris","tempC":18}`)),
		"call_1")
}

func (h Harness) testRequireToolCallSendsToolChoiceOnlyWithTools(t *testing.T) {
	wiretest.RequireToolCallOnlyWithTools(t, h.Adapter, PlainCompletion)
}

// A reply in prose instead of a call of the output tool fails at
// json-parse, and its correction is a user message asking for the call.
func (h Harness) testAgentOutputToolProseInsteadOfTheCallThroughTheWire(t *testing.T) {
	wiretest.OutputToolProse(t, h.Adapter,
		okReply(PlainCompletion), "Paris.", // text, not a call
		okReply(toolCall("call_1", "final_result", `{"city":"Paris","tempC":18}`)))
}
