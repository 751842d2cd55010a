package openaiwiretest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// A tool call whose streamed arguments its tool's parameters doom is cut
// at that byte: the connection closes, the call never runs, its row says
// how far it got, and it goes back as far as it came, answered by a tool
// message saying it was stopped.
func (h Harness) testAgentCutsADoomedToolCallOffMidStream(t *testing.T) {
	gone := make(chan struct{})
	srv := h.Adapter.Server(t, wiretest.Reply{Status: 200, Gone: gone, Events: []string{
		Delta(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"lookup","arguments":""}}],"refusal":null}`, ""),
		argsDelta(`{"city"`), argsDelta(`:true`), argsDelta(`}`),
	}}, okReply(Completion("Sunny.")))
	ran := false
	lookup := agent.Tool{Name: "lookup", Description: "looks up a city",
		Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		Run:        func(context.Context, json.RawMessage) (string, error) { ran = true; return "sunny", nil }}
	res, err := agent.New(h.Adapter.Model(t, srv), agent.WithTools(lookup)).Run(context.Background(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	wiretest.WaitGone(t, gone)
	if ran {
		t.Error("the doomed call ran")
	}
	if len(res.Calls) != 1 {
		t.Fatalf("calls = %+v, want one row", res.Calls)
	}
	if row := res.Calls[0]; row.Outcome != enforce.OutcomeRetried || row.Stage != enforce.StageSchemaValidate ||
		row.Path != "/city" || row.Cut == nil || row.Cut.Bytes != len(`{"city":t`) {
		t.Fatalf("row = %+v, want /city failing at schema-validate, cut after %d bytes", row, len(`{"city":t`))
	}
	msgs := h.Adapter.Sent(t, srv, 1).Conversation()
	if len(msgs) != 3 {
		t.Fatalf("second request = %v, want the user's turn, the cut call, its result", h.Adapter.Sent(t, srv, 1).Shape())
	}
	if c := msgs[1].Only(t, "call"); c.ID != "call_1" || c.Name != "lookup" || c.Args != `{"city":t` {
		t.Errorf("the cut call went back as %+v, want call_1 with the arguments read", c)
	}
	if r := msgs[2].Result(t); r.ID != "call_1" || !strings.Contains(r.Text, "stopped reading the arguments") || !strings.Contains(r.Text, `"/city"`) {
		t.Errorf("result = %+v, want call_1's saying the arguments were stopped at /city", r)
	}
}
