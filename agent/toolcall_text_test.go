package agent_test

import (
	"reflect"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

// hermesCall is a call a server failed to parse, left in the text.
const hermesCall = "<tool_call>\n{\"name\": \"lookup\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"

func TestToolCallsLeftInTheTextAreReadBackWhenOptedIn(t *testing.T) {
	var got []string
	m := agenttest.NewModel(t, agenttest.Reply(hermesCall), agenttest.Reply("sunny"))
	res, err := agent.New(m, agent.WithTools(plainLookup(&got)), agent.WithRepairs(enforce.RepairToolText)).Run(t.Context(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{`{"city": "Paris"}`}; !reflect.DeepEqual(got, want) {
		t.Errorf("the tool was given %q, want the arguments as written, %q", got, want)
	}
	if len(res.Calls) != 1 {
		t.Fatalf("Calls = %+v, want one row", res.Calls)
	}
	if g, want := callRows(res.Calls), []callRow{{Attempt: 1, Tool: "lookup", ID: res.Calls[0].CallID, Outcome: enforce.OutcomePassed, Repaired: enforce.RepairToolText}}; !reflect.DeepEqual(g, want) || res.Calls[0].CallID == "" {
		t.Errorf("Calls = %+v, want %+v with an ID", g, want)
	}
	// The conversation keeps the model's text; the call read back is its
	// call, which the tool message answers.
	reply := m.Requests()[1].Messages[len(m.Requests()[1].Messages)-2]
	answer := m.Requests()[1].Messages[len(m.Requests()[1].Messages)-1]
	if reply.Content != hermesCall || len(reply.ToolCalls) != 1 || reply.ToolCalls[0].ID != res.Calls[0].CallID || string(reply.ToolCalls[0].Arguments) != `{"city": "Paris"}` {
		t.Errorf("the reply as sent back = %+v, want the model's text and the call read back", reply)
	}
	if answer.Role != agent.RoleTool || answer.ToolCallID != res.Calls[0].CallID || answer.Content != "sunny" {
		t.Errorf("the tool message = %+v, want the tool's output answering the call", answer)
	}
	if res.Output != "sunny" {
		t.Errorf("Output = %q, want sunny", res.Output)
	}
}

func TestToolCallsLeftInTheTextAreTheAnswerUnlessOneReading(t *testing.T) {
	cityContract := compile(t, `{"type":"object","properties":{"name":{"type":"string"},"arguments":{"type":"object"}},"required":["name"]}`)
	for _, tc := range []struct {
		name  string
		reply agenttest.Step
		opts  []agent.Option
	}{
		{"not opted in", agenttest.Reply(hermesCall), []agent.Option{agent.WithRepairs(enforce.AllRepairs &^ enforce.RepairToolText)}},
		{"text around it", agenttest.Reply("Let me check.\n" + hermesCall), []agent.Option{agent.WithRepairs(enforce.AllRepairs)}},
		{"no such tool", agenttest.Reply(`<tool_call>{"name":"search","arguments":{}}</tool_call>`), []agent.Option{agent.WithRepairs(enforce.AllRepairs)}},
		{"cut at the output limit", agenttest.Reply(`{"name":"lookup","arguments":{"city":"Paris"}}`).WithStop(agent.StopLength), []agent.Option{agent.WithRepairs(enforce.AllRepairs)}},
		{"it keeps the contract as the answer", agenttest.Reply(`{"name":"lookup","arguments":{"city":"Paris"}}`),
			[]agent.Option{agent.WithRepairs(enforce.AllRepairs), agent.WithOutputSchema(cityContract)}},
	} {
		var got []string
		m := agenttest.NewModel(t, tc.reply)
		res, _ := agent.New(m, append(tc.opts, agent.WithTools(plainLookup(&got)))...).Run(t.Context(), "Weather in Paris?")
		if len(got) != 0 || res.Calls != nil {
			t.Errorf("%s: the tool ran with %q, rows %+v; want no call read back", tc.name, got, res.Calls)
		}
	}
}
