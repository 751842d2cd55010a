package goopenai

import (
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
	"github.com/enforcer-go/enforcer/providers/native"
)

func TestAgentChoiceThroughTheWire(t *testing.T) {
	wiretest.ChoiceThroughTheWire(t, adapter, okReply(completion("Positive.")), okReply(completion("positive")))
}

func TestAgentChoiceAsAnOutputToolThroughTheWire(t *testing.T) {
	wiretest.ChoiceOutputTool(t, adapter,
		okReply(toolCall("call_1", "classify", `{"label":"pos"}`)),
		okReply(toolCall("call_2", "classify", `{"label":"negative"}`)), "call_1")
}

func TestAgentChoiceInStrictModeThroughTheWire(t *testing.T) {
	strict := adapter
	strict.New = func(t *testing.T, c wiretest.Client) agent.StreamingModel {
		return New(clientAt(c.URL), "gpt-4o-mini", WithNativeSchema(native.OpenAI))
	}
	wiretest.ChoiceNative(t, strict, okReply(completion(`{"label":"neutral"}`)))
}

func TestAgentTextCutAtAForbiddenSubstringThroughTheWire(t *testing.T) {
	wiretest.TextCutThroughTheWire(t, adapter, []string{
		delta(`{"role":"assistant","content":"","refusal":null}`, ""),
		content("Well, as "), content("an AI, I "), content("cannot feel the weather."),
	}, okReply(completion("Sunny in Paris.")))
}
