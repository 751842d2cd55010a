package gemini

import (
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// answerCall is a reply that calls name with args.
func answerCall(name, args string) string {
	return response("STOP", `{"promptTokenCount":30,"candidatesTokenCount":8,"totalTokenCount":38}`, funcCall("", name, args))
}

func TestAgentOutputToolThroughTheWire(t *testing.T) {
	// With WithNativeSchema, too, the schema goes as the tool's
	// parameters alone.
	native := adapter
	native.New = func(t *testing.T, c wiretest.Client) agent.StreamingModel { return modelAt(t, c, WithNativeSchema()) }
	// The calls come without IDs: the ones the adapter makes up are sent
	// back as none.
	wiretest.OutputToolThroughTheWire(t, native,
		okReply(answerCall("final_result", `{"city":"Paris"}`)), // tempC missing
		okReply(answerCall("final_result", `{"city":"Paris","tempC":18}`)),
		"")
}

func TestAgentOutputToolProseInsteadOfTheCallThroughTheWire(t *testing.T) {
	wiretest.OutputToolProse(t, adapter,
		okReply(answer("Paris is sunny, 18 degrees.")), "Paris is sunny, 18 degrees.",
		okReply(answerCall("final_result", `{"city":"Paris","tempC":18}`)))
}
