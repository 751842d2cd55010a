package anthropic

import (
	"testing"

	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// toolUse is a 200 body whose reply is one tool_use block of name with
// input.
func toolUse(id, name, input string) string {
	return `{"id":"msg_04","type":"message","role":"assistant","model":"claude-sonnet-4-5",
"content":[{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":` + input + `}],
"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":30,"output_tokens":8}}`
}

func TestAgentOutputToolThroughTheWire(t *testing.T) {
	wiretest.OutputToolThroughTheWire(t, adapter,
		okReply(toolUse("toolu_1", "final_result", `{"city":"Paris"}`)), // tempC missing
		okReply(toolUse("toolu_2", "final_result", `{"city":"Paris","tempC":18}`)),
		"toolu_1")
}

func TestRequireToolCallSendsToolChoiceOnlyWithTools(t *testing.T) {
	wiretest.RequireToolCallOnlyWithTools(t, adapter, plainMessage)
}

// A reply in prose instead of a call of the output tool fails at
// json-parse, and its correction is a user message asking for the call.
func TestAgentOutputToolProseInsteadOfTheCallThroughTheWire(t *testing.T) {
	wiretest.OutputToolProse(t, adapter,
		okReply(plainMessage), "Paris.", // text, not a call
		okReply(toolUse("toolu_1", "final_result", `{"city":"Paris","tempC":18}`)))
}
