package anthropic

import (
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

func TestAgentChoiceThroughTheWire(t *testing.T) {
	wiretest.ChoiceThroughTheWire(t, adapter, okReply(message("Positive.")), okReply(message("positive")))
}

func TestAgentChoiceAsAnOutputToolThroughTheWire(t *testing.T) {
	wiretest.ChoiceOutputTool(t, adapter,
		okReply(toolUse("toolu_1", "classify", `{"label":"pos"}`)),
		okReply(toolUse("toolu_2", "classify", `{"label":"negative"}`)), "toolu_1")
}

func TestAgentChoiceInNativeModeThroughTheWire(t *testing.T) {
	structured := adapter
	structured.New = func(t *testing.T, c wiretest.Client) agent.StreamingModel {
		return New(clientAt(c.URL), "claude-sonnet-4-5", WithNativeSchema())
	}
	wiretest.ChoiceNative(t, structured, okReply(message(`{"label":"neutral"}`)))
}

func TestAgentTextCutAtAForbiddenSubstringThroughTheWire(t *testing.T) {
	wiretest.TextCutThroughTheWire(t, adapter, []string{
		sseStart(10, 0, 0), sseBlockStart(0, textStart),
		sseText(0, "Well, as "), sseText(0, "an AI, I "), sseText(0, "cannot feel the weather."),
	}, okReply(message("Sunny in Paris.")))
}
