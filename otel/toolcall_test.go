package otel_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

func TestARejectedToolCallsRowIsOnItsToolSpan(t *testing.T) {
	tp, exp := traced(t)
	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("call-1", "lookup", `{"city":3}`)),
		agenttest.CallTools(agenttest.Call("call-2", "lookup", `{'city':'Paris'}`)),
		agenttest.Reply(valid))
	ran := 0
	lookup := agent.Tool{Name: "lookup", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`),
		Run: func(context.Context, json.RawMessage) (string, error) { ran++; return "31C", nil }}
	a := newAgent(t, tp, m, agent.WithTools(lookup), agent.WithRepairs(enforce.AllRepairs))
	res, err := a.Run(t.Context(), prompt)
	if err != nil {
		t.Fatal(err)
	}
	var tools []map[string]string
	for _, s := range exp.GetSpans() {
		if s.Name == "execute_tool lookup" {
			tools = append(tools, attrs(s))
		}
	}
	if len(tools) != 2 || ran != 1 {
		t.Fatalf("%d tool spans, the tool ran %d times; want 2 spans and 1 run", len(tools), ran)
	}
	for _, got := range tools {
		switch got["gen_ai.tool.call.id"] {
		case "call-1":
			want := map[string]string{"enforcer.tool_call.number": "1", "enforcer.tool_call.outcome": "retried", "enforcer.tool_call.stage": "schema-validate",
				"enforcer.tool_call.path": "/city", "enforcer.tool_call.corrective_message_hash": res.Calls[0].CorrectiveMessageHash}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("call-1's span: %s = %q, want %q", k, got[k], v)
				}
			}
		case "call-2":
			if got["enforcer.tool_call.outcome"] != "passed" || got["enforcer.tool_call.repaired"] != `["syntax"]` || got["enforcer.tool_call.stage"] != "" {
				t.Errorf("call-2's span = %v, want passed, repaired syntax, no stage", got)
			}
		}
	}
}
