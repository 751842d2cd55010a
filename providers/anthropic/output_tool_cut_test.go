package anthropic

import (
	"testing"

	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

func TestAgentCutsADoomedOutputToolCallOffMidStream(t *testing.T) {
	// The call's input gives city a number. The cut input is no object,
	// which the API takes only: it goes back as {}.
	res := wiretest.OutputToolCut(t, adapter, []string{
		sseStart(10, 0, 0),
		sseBlockStart(0, `{"type":"tool_use","id":"toolu_1","name":"final_result","input":{}}`),
		sseJSON(0, ""), sseJSON(0, `{"city"`), sseJSON(0, `:42`), sseJSON(0, `,"tempC"`), sseJSON(0, `:18}`),
	}, okReply(toolUse("toolu_2", "final_result", `{"city":"Paris","tempC":18}`)), "toolu_1", `{}`)
	if got, want := res.Attempts[0].Cut.OutputTokens, 1; got != want {
		t.Errorf("cut's output tokens = %d, want %d, as message_start reported", got, want)
	}
}
