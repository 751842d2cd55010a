package openaiwiretest

import (
	"encoding/json"
	"testing"

	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// argsDelta is a chunk continuing call 0's arguments with s.
func argsDelta(s string) string {
	b, _ := json.Marshal(s)
	return Delta(`{"tool_calls":[{"index":0,"function":{"arguments":`+string(b)+`}}]}`, "")
}

func (h Harness) testAgentCutsADoomedOutputToolCallOffMidStream(t *testing.T) {
	// The call's arguments give city a number; they go back as far as
	// they came.
	wiretest.OutputToolCut(t, h.Adapter, []string{
		Delta(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"final_result","arguments":""}}],"refusal":null}`, ""),
		argsDelta(`{"city"`), argsDelta(`:42`), argsDelta(`,"tempC"`), argsDelta(`:18}`),
	}, okReply(toolCall("call_2", "final_result", `{"city":"Paris","tempC":18}`)), "call_1", `{"city":42,`)
}
