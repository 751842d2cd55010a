package openaiwiretest

import (
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
	"github.com/enforcer-go/enforcer/providers/native"
)

func (h Harness) testAgentChoiceThroughTheWire(t *testing.T) {
	wiretest.ChoiceThroughTheWire(t, h.Adapter, okReply(Completion("Positive.")), okReply(Completion("positive")))
}

func (h Harness) testAgentChoiceAsAnOutputToolThroughTheWire(t *testing.T) {
	wiretest.ChoiceOutputTool(t, h.Adapter,
		okReply(toolCall("call_1", "classify", `{"label":"pos"}`)),
		okReply(toolCall("call_2", "classify", `{"label":"negative"}`)), "call_1")
}

func (h Harness) testAgentChoiceInStrictModeThroughTheWire(t *testing.T) {
	strict := h.Adapter
	strict.New = func(t *testing.T, c wiretest.Client) agent.StreamingModel {
		return h.New(c.URL, "gpt-4o-mini", WithNativeSchema(native.OpenAI))
	}
	wiretest.ChoiceNative(t, strict, okReply(Completion(`{"label":"neutral"}`)))
}

func (h Harness) testAgentTextCutAtAForbiddenSubstringThroughTheWire(t *testing.T) {
	wiretest.TextCutThroughTheWire(t, h.Adapter, []string{
		Delta(`{"role":"assistant","content":"","refusal":null}`, ""),
		Content("Well, as "), Content("an AI, I "), Content("cannot feel the weather."),
	}, okReply(Completion("Sunny in Paris.")))
}
