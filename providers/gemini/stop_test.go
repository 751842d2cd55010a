package gemini

import (
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

const cutAnswer = `{"city":"Paris","te`

func TestAgentThroughTheWire(t *testing.T) {
	whole := okReply(answer(`{"city":"Paris","tempC":18}`))
	wiretest.AgentTruncatedAnswers(t, adapter, okReply(response("MAX_TOKENS", "", text(cutAnswer))), whole)
	wiretest.AgentTruncatedCall(t, adapter, okReply(response("MAX_TOKENS", "", funcCall("fc-cut", "weather", `{"city":"Par"}`))), "fc-cut", whole)
	wiretest.AgentJudgesToolCalls(t, adapter, okReply(response("STOP", "", funcCall("fc-bad", "weather", `{"city":42}`))), "fc-bad",
		okReply(response("STOP", "", funcCall("fc-good", "weather", `{"city":"Paris"}`))), "fc-good", whole)
	wiretest.AgentWithheld(t, adapter, []wiretest.Withheld{
		{Name: "a safety stop", Reply: okReply(response("SAFETY", "", text(`{"city":`))), Stop: agent.StopContentFilter, Raw: "SAFETY", Text: `{"city":`},
		// Streamed, the stop comes with the last chunk: what came before it
		// must not be doomed already, or early abort cuts it first.
		{Name: "a recitation stop", Reply: okReply(response("RECITATION", "", text(`{"city":"Par`))), Stop: agent.StopContentFilter, Raw: "RECITATION", Text: `{"city":"Par`},
		{Name: "a safety stop with nothing kept, as Gemini streams it", Reply: okReply(response("SAFETY", "")), Stop: agent.StopContentFilter, Raw: "SAFETY"},
		{Name: "a blocked prompt", Reply: okReply(`{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"}}`), Stop: agent.StopContentFilter, Raw: "PROHIBITED_CONTENT"},
	})
}

func TestAgentCutsADoomedOutputToolCallOffMidStream(t *testing.T) {
	// The call, whole in one chunk, gives city a number; its arguments,
	// cut, are no object, which the API takes only: they go back as {},
	// which the SDK leaves out of the call.
	wiretest.OutputToolCut(t, adapter, []string{
		event(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"final_result","args":{"city":42,"tempC":18}}}]},"index":0}]}`),
	}, okReply(answerCall("final_result", `{"city":"Paris","tempC":18}`)), "", "")
}
