package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

const cutAnswer = `{"city":"Paris","te`

func TestAgentThroughTheWire(t *testing.T) {
	whole := okReply(answer(`{"city":"Paris","tempC":18}`))
	wiretest.AgentCutOffAnswers(t, adapter, okReply(response("MAX_TOKENS", "", text(cutAnswer))), whole)
	wiretest.AgentCutOffCall(t, adapter, okReply(response("MAX_TOKENS", "", funcCall("fc-cut", "weather", `{"city":"Par"}`))), "fc-cut", whole)
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
	gone := make(chan struct{})
	// The call gives city a number; the server holds the reply open until
	// the client goes away.
	first := reply{Status: 200, Gone: gone, Events: []string{
		event(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"final_result","args":{"city":42,"tempC":18}}}]},"index":0}]}`),
	}}
	srv := newFakeServer(t, first, okReply(answerCall("final_result", `{"city":"Paris","tempC":18}`)))
	a := agent.New(New(srv.client(t), "gemini-test"), agent.WithOutputTool("final_result"), agent.WithOutputRetries(1))
	w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
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
	if row.Outcome != enforce.OutcomeRetried || row.Stage != enforce.StageSchemaValidate || row.Path != "/city" || row.Cut == nil {
		t.Fatalf("first row = %+v, want /city failing at schema-validate, cut", row)
	}
	// The corrective turn went out as the call's result.
	second, _ := decodeRequest(t, srv.requests()[1])
	n := len(second.Contents)
	asked, corr := second.Contents[n-2], second.Contents[n-1]
	if asked.Role != "model" || asked.Parts[0]["functionCall"] == nil {
		t.Errorf("second request's model content = %+v, want the call", asked)
	}
	var fr struct {
		ID       string            `json:"id"`
		Name     string            `json:"name"`
		Response map[string]string `json:"response"`
	}
	if err := json.Unmarshal(corr.Parts[0]["functionResponse"], &fr); err != nil {
		t.Fatalf("correction = %+v: %v", corr, err)
	}
	if corr.Role != "user" || fr.Name != "final_result" || !strings.Contains(fr.Response["output"], "stopped reading your previous answer") {
		t.Errorf("correction = %+v, want final_result's result saying the answer was stopped", fr)
	}
}
