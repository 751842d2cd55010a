package anthropic

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

func TestAgentCutsADoomedOutputToolCallOffMidStream(t *testing.T) {
	gone := make(chan struct{})
	// The first call's input gives city a number; the server holds the
	// reply open until the client goes away.
	first := reply{Status: 200, Gone: gone, Events: []string{
		sseStart(10, 0, 0),
		sseBlockStart(0, `{"type":"tool_use","id":"toolu_1","name":"final_result","input":{}}`),
		sseJSON(0, ""), sseJSON(0, `{"city"`), sseJSON(0, `:42`), sseJSON(0, `,"tempC"`), sseJSON(0, `:18}`),
	}}
	srv := newFakeServer(t, first, okReply(toolUse("toolu_2", "final_result", `{"city":"Paris","tempC":18}`)))
	a := agent.New(New(srv.client(), "claude-sonnet-4-5"), agent.WithOutputTool("final_result"), agent.WithOutputRetries(1))

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
	if got, want := row.Cut.OutputTokens, 1; got != want {
		t.Errorf("cut's output tokens = %d, want %d, as message_start reported", got, want)
	}

	// The corrective turn went out as the call's tool_result. The cut
	// input is no object, which the API takes only: it goes back as {}.
	reqs := srv.requests()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(reqs))
	}
	second, _ := decodeRequest(t, reqs[1])
	if got, want := second.roles(), []string{"user:text", "assistant:tool_use", "user:tool_result"}; !slices.Equal(got, want) {
		t.Fatalf("second request = %v, want %v", got, want)
	}
	asked, corr := second.Messages[1].Content[0], second.Messages[2].Content[0]
	if asked.ID != "toolu_1" || string(asked.Input) != `{}` {
		t.Errorf("the cut call went back as %+v, want toolu_1 with input {}", asked)
	}
	if corr.ToolUseID != "toolu_1" || len(corr.Content) != 1 || !strings.Contains(corr.Content[0].Text, "stopped reading your previous answer") ||
		!strings.Contains(corr.Content[0].Text, `"/city"`) {
		t.Errorf("correction = %+v, want toolu_1's tool_result saying the answer was stopped at /city", corr)
	}
}
