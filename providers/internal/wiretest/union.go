package wiretest

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// The scenarios below run agent.RunUnion over the adapter: the answer is
// a Refund or an Escalation, the model's choice.

// Refund and Escalation are the members of the scenarios' unions.
type (
	Refund struct {
		Order  string  `json:"order"`
		Amount float64 `json:"amount"`
	}
	Escalation struct {
		Team string `json:"team"`
	}
)

// UnionMembers are the members of the scenarios' unions, refund first.
func UnionMembers() []agent.UnionMember {
	return []agent.UnionMember{
		agent.Member[Refund]("refund", "money back for an order"),
		agent.Member[Escalation]("escalation", "a person must look at it"),
	}
}

// UnionBilling is the answer the scenarios' union runs end with.
var UnionBilling = agent.Union{Member: "escalation", Value: Escalation{Team: "billing"}}

func unionMembers(rows []enforce.Attempt) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Member)
	}
	return out
}

// UnionToolsThroughTheWire checks a union in tool mode
// (agent.WithOutputTool): the first request requires a call, sends no
// native output format and declares one tool per member, refund and
// escalation, each with its member's schema as parameters; the first
// reply (first) calls refund (its wire ID id) without an amount, which
// fails at schema-validate on /refund/amount and is corrected through
// that call's result; the run passes on second, a call of escalation
// with team "billing". Rows name the member each call chose.
func UnionToolsThroughTheWire(t *testing.T, a Adapter, first, second Reply, id string) {
	srv := a.Server(t, first, second)
	ag := outputToolAgent(a.Model(t, srv), agent.WithEarlyAbort(false))
	u, res, err := agent.RunUnion(context.Background(), ag, "Order A1 arrived broken.", UnionMembers()...)
	if err != nil {
		t.Fatal(err)
	}
	if u != UnionBilling {
		t.Errorf("union = %+v, want %+v (the second call's)", u, UnionBilling)
	}
	if len(res.Attempts) != 2 || res.Attempts[0].Path != "/refund/amount" || res.Attempts[1].Outcome != enforce.OutcomePassed {
		t.Fatalf("rows = %+v, want refund's call failing at /refund/amount, then a pass", res.Attempts)
	}
	if got, want := unionMembers(res.Attempts), []string{"refund", "escalation"}; !slices.Equal(got, want) {
		t.Errorf("rows' members = %q, want %q", got, want)
	}

	sent := a.Sent(t, srv, 0)
	if !sent.CallRequired || sent.Format != nil {
		t.Errorf("tool choice = %s, format = %s: want a call required and no native format", sent.ToolChoice, sent.Format)
	}
	var names []string
	for _, tool := range sent.Tools {
		names = append(names, tool.Name)
		var params struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		json.Unmarshal(tool.Schema, &params)
		if want := map[string]string{"refund": "amount", "escalation": "team"}[tool.Name]; params.Properties[want] == nil {
			t.Errorf("tool %s's parameters = %s, want its member's schema (with %q)", tool.Name, tool.Schema, want)
		}
	}
	if !slices.Equal(names, []string{"refund", "escalation"}) {
		t.Fatalf("tools = %q, want one per member", names)
	}

	next := a.Sent(t, srv, 1)
	n := len(next.Messages)
	if n < 2 || next.Messages[n-2].Role != "assistant" {
		t.Fatalf("second request = %v, want the call, then its result", next.Shape())
	}
	if c := next.Messages[n-2].Only(t, "call"); c.ID != id || c.Name != "refund" {
		t.Errorf("second request's call = %+v, want the first call of refund, %q", c, id)
	}
	r := next.Messages[n-1].Result(t)
	if r.ID != id || (a.NamesResults && r.Name != "refund") {
		t.Errorf("result = %+v, want refund's, for call %q", r, id)
	}
	if !strings.Contains(r.Text, `Call one of the tools "refund", "escalation"`) || !strings.Contains(r.Text, `"/refund/amount"`) {
		t.Errorf("correction = %q, want the call's result naming /refund/amount and asking for a member's call", r.Text)
	}
}

// UnionNativeThroughTheWire checks a union in the adapter's native mode
// (a configured as the caller set it up): the request's native format
// holds the union's schema, both members; the first reply (both) names
// both members, which fails at schema-validate at the root and is
// corrected by a user message saying so; the run passes on second, the
// escalation of team "billing" as the provider writes it. It returns the
// run's result and the first request, for the provider's own rules.
func UnionNativeThroughTheWire(t *testing.T, a Adapter, both, second Reply) (*agent.Result, Sent) {
	srv := a.Server(t, both, second)
	ag := agent.New(a.Model(t, srv), agent.WithOutputRetries(1))
	u, res, err := agent.RunUnion(context.Background(), ag, "Order A1 arrived broken.", UnionMembers()...)
	if err != nil {
		t.Fatal(err)
	}
	if u != UnionBilling {
		t.Errorf("union = %+v, want %+v", u, UnionBilling)
	}
	if len(res.Attempts) != 2 || res.Attempts[0].Stage != enforce.StageSchemaValidate || res.Attempts[0].Path != "" ||
		!strings.HasPrefix(res.Attempts[0].Error, "the answer names 2 members of the union") {
		t.Fatalf("rows = %+v, want the answer naming two members failing at the root, then a pass", res.Attempts)
	}
	if got, want := unionMembers(res.Attempts), []string{"", "escalation"}; !slices.Equal(got, want) {
		t.Errorf("rows' members = %q, want %q", got, want)
	}
	sent := a.Sent(t, srv, 0)
	for _, member := range []string{`"refund"`, `"escalation"`, `"amount"`, `"team"`} {
		if !strings.Contains(string(sent.Format), member) {
			t.Errorf("native format = %s, want the union's schema (with %s)", sent.Format, member)
		}
	}
	next := a.Sent(t, srv, 1)
	if text := next.Last(t).Only(t, "text").Text; !strings.Contains(text, `names 2 members of the union`) {
		t.Errorf("correction = %q, want the user's message saying the answer named two members", text)
	}
	return res, sent
}
