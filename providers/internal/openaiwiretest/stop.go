package openaiwiretest

import (
	"encoding/json"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// finished is a 200 body with one choice: message (its JSON) ending with
// finish_reason.
func finished(finish, message string) string {
	return `{"id":"chatcmpl-9","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini",
"choices":[{"index":0,"finish_reason":"` + finish + `","logprobs":null,"message":` + message + `}],
"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`
}

// text is an assistant message whose content is s.
func text(s string) string {
	b, _ := json.Marshal(s)
	return `{"role":"assistant","content":` + string(b) + `,"refusal":null}`
}

const (
	cutAnswer  = `{"city":"Paris","te`
	refusalMsg = `{"role":"assistant","content":null,"refusal":"I'm sorry, I can't help with that."}`
	filtered   = `{"role":"assistant","content":null,"refusal":null}`
	cutCall    = `{"role":"assistant","content":null,"refusal":null,"tool_calls":[{"id":"call_cut","type":"function",
"function":{"name":"weather","arguments":"{\"city\":\"Pa"}}]}`
)

func (h Harness) testGenerateSaysWhyTheReplyEnded(t *testing.T) {
	wiretest.StopReasons(t, h.Adapter, []wiretest.Ended{
		{Name: "stop is complete", Body: finished("stop", text("Paris.")), Stop: agent.StopComplete, Raw: "stop", Content: "Paris."},
		{Name: "length is a cut-off reply", Body: finished("length", text(cutAnswer)), Stop: agent.StopLength, Raw: "length", Content: cutAnswer},
		{Name: "tool_calls is tool use", Body: ToolCallCompletion, Stop: agent.StopToolUse, Raw: "tool_calls"},
		{Name: "the older function_call is tool use", Body: finished("function_call", `{"role":"assistant","content":null,"function_call":{"name":"weather","arguments":"{}"}}`), Stop: agent.StopToolUse, Raw: "function_call"},
		{Name: "content_filter is a filtered reply", Body: finished("content_filter", filtered), Stop: agent.StopContentFilter, Raw: "content_filter"},
		{Name: "a message with a refusal is a refusal, its text the content", Body: finished("stop", refusalMsg), Stop: agent.StopRefusal, Raw: "stop", Content: "I'm sorry, I can't help with that."},
		{Name: "a finish_reason OpenAI does not document is unknown, kept raw", Body: finished("insufficient_system_resource", text("")), Stop: agent.StopUnknown, Raw: "insufficient_system_resource"},
	})
}

func (h Harness) testAgentThroughTheWire(t *testing.T) {
	answer := okReply(Completion(`{"city":"Paris","tempC":18}`))
	wiretest.AgentTruncatedAnswers(t, h.Adapter, okReply(finished("length", text(cutAnswer))), answer)
	wiretest.AgentTruncatedCall(t, h.Adapter, okReply(finished("length", cutCall)), "call_cut", answer)
	wiretest.AgentJudgesToolCalls(t, h.Adapter, okReply(toolCall("call_bad", "weather", `{"city":42}`)), "call_bad",
		okReply(toolCall("call_good", "weather", `{"city":"Paris"}`)), "call_good", answer)
	// Early abort stays on: a refusal is marked from its first delta, and
	// the loop stops judging the reply there.
	wiretest.AgentWithheld(t, h.Adapter, []wiretest.Withheld{
		{Name: "a refusal", Reply: okReply(finished("stop", refusalMsg)), Stop: agent.StopRefusal, Raw: "stop", Text: "I'm sorry, I can't help with that."},
		{Name: "a content filter stop", Reply: okReply(finished("content_filter", filtered)), Stop: agent.StopContentFilter, Raw: "content_filter"},
	})
}
