package eino_test

import (
	"slices"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/integrations/eino"
)

type Refund struct {
	Order  string  `json:"order"`
	Amount float64 `json:"amount"`
}

type Escalation struct {
	Team string `json:"team"`
}

// A union in tool mode over an eino model: each member is a tool eino
// is told of, the call is forced, a failing call is corrected through
// its result, and the value is the member chosen.
func TestAUnionsMembersAreToolsOfTheEinoModel(t *testing.T) {
	call := func(id, name, args string) []*schema.Message {
		return []*schema.Message{schema.AssistantMessage("", []schema.ToolCall{{ID: id, Function: schema.FunctionCall{Name: name, Arguments: args}}})}
	}
	m := newScripted(call("c1", "refund", `{"order":"A1"}`), call("c2", "refund", `{"order":"A1","amount":12.5}`))
	a := agent.New(eino.NewModel(m), agent.WithOutputTool("final_answer"), agent.WithOutputRetries(1), stillClock)
	u, res, err := agent.RunUnion(t.Context(), a, "Order A1 arrived broken.",
		agent.Member[Refund]("refund", "money back"), agent.Member[Escalation]("escalation", "a person looks"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (agent.Union{Member: "refund", Value: Refund{Order: "A1", Amount: 12.5}}); u != want {
		t.Errorf("union = %+v, want %+v", u, want)
	}
	if len(res.Attempts) != 2 || res.Attempts[0].Path != "/refund/amount" || res.Attempts[0].Member != "refund" {
		t.Errorf("rows = %+v, want refund's call failing at /refund/amount, then a pass", res.Attempts)
	}
	var tools []string
	for _, tool := range m.tools[0] {
		tools = append(tools, tool.Name)
	}
	if want := []string{"refund", "escalation"}; !slices.Equal(tools, want) {
		t.Errorf("eino was given the tools %q, want %q", tools, want)
	}
	if tc := m.opts[0].ToolChoice; tc == nil || *tc != schema.ToolChoiceForced {
		t.Errorf("tool choice = %v, want %q", tc, schema.ToolChoiceForced)
	}
}
