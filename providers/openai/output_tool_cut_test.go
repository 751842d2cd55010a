package openai

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// argsDelta is a chunk continuing call 0's arguments with s.
func argsDelta(s string) string {
	b, _ := json.Marshal(s)
	return delta(`{"tool_calls":[{"index":0,"function":{"arguments":`+string(b)+`}}]}`, "")
}

func TestAgentCutsADoomedOutputToolCallOffMidStream(t *testing.T) {
	gone := make(chan struct{})
	// The first call's arguments give city a number; the server holds the
	// reply open until the client goes away.
	first := reply{Status: 200, Gone: gone, Events: []string{
		delta(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"final_result","arguments":""}}],"refusal":null}`, ""),
		argsDelta(`{"city"`), argsDelta(`:42`), argsDelta(`,"tempC"`), argsDelta(`:18}`),
	}}
	srv := newFakeServer(t, first, okReply(toolCall("call_2", "final_result", `{"city":"Paris","tempC":18}`)))
	a := agent.New(New(srv.client(), "gpt-4o-mini"), agent.WithOutputTool("final_result"), agent.WithOutputRetries(1))

	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	wiretest.WaitGone(t, gone)
	if got, want := w, (Weather{City: "Paris", TempC: 18}); got != want {
		t.Errorf("answer = %+v, want %+v", got, want)
	}
	if len(res.Attempts) != 2 || res.Attempts[1].Outcome != enforce.OutcomePassed {
		t.Fatalf("rows = %+v, want a cut row, then a pass", res.Attempts)
	}
	row := res.Attempts[0]
	if row.Outcome != enforce.OutcomeRetried || row.Stage != enforce.StageSchemaValidate || row.Path != "/city" ||
		row.Cut == nil || row.Cut.Bytes != len(`{"city":42,`) {
		t.Fatalf("first row = %+v, want /city failing at schema-validate, cut after %d bytes", row, len(`{"city":42,`))
	}

	// The corrective turn went out as the call's result, after the call
	// cut at the dooming byte.
	reqs := srv.requests()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(reqs))
	}
	second, _ := decodeRequest(t, reqs[1])
	n := len(second.Messages)
	asked, corr := second.Messages[n-2], second.Messages[n-1]
	if asked.Role != "assistant" || len(asked.ToolCalls) != 1 || asked.ToolCalls[0].ID != "call_1" ||
		asked.ToolCalls[0].Function.Arguments != `{"city":42,` {
		t.Errorf("second request's assistant message = %+v, want call_1 with its arguments up to the cut", asked)
	}
	var text string
	json.Unmarshal(corr.Content, &text)
	if corr.Role != "tool" || corr.ToolCallID != "call_1" || !strings.Contains(text, "stopped reading your previous answer") {
		t.Errorf("correction = role %s, id %s, %q; want call_1's result saying the answer was stopped", corr.Role, corr.ToolCallID, text)
	}
}
