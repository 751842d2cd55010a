package gemini

import (
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

func TestAgentChoiceThroughTheWire(t *testing.T) {
	wiretest.ChoiceThroughTheWire(t, adapter, okReply(answer("Positive.")), okReply(answer("positive")))
}

func TestAgentChoiceAsAnOutputToolThroughTheWire(t *testing.T) {
	wiretest.ChoiceOutputTool(t, adapter,
		okReply(answerCall("classify", `{"label":"pos"}`)),
		okReply(answerCall("classify", `{"label":"negative"}`)), "")
}

func TestAgentChoiceInNativeModeThroughTheWire(t *testing.T) {
	structured := adapter
	structured.New = func(t *testing.T, c wiretest.Client) agent.StreamingModel { return modelAt(t, c, WithNativeSchema()) }
	wiretest.ChoiceNative(t, structured, okReply(answer(`{"label":"neutral"}`)))
}

func TestAgentTextCutAtAForbiddenSubstringThroughTheWire(t *testing.T) {
	wiretest.TextCutThroughTheWire(t, adapter, []string{
		textChunk("Well, as "), textChunk("an AI, I "), textChunk("cannot feel the weather."),
	}, okReply(answer("Sunny in Paris.")))
}
