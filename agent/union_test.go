package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/fnv"
)

type Refund struct {
	Order  string  `json:"order"`
	Amount float64 `json:"amount"`
}

type Escalation struct {
	Team   string `json:"team"`
	Reason string `json:"reason"`
}

// Ticket has only optional fields: {} keeps it, so two members of it
// both take an answer that names neither.
type Ticket struct {
	Note string `json:"note,omitempty"`
}

func supportMembers() []agent.UnionMember {
	return []agent.UnionMember{
		agent.Member[Refund]("refund", "money back for an order"),
		agent.Member[Escalation]("escalation", "a person must look at it"),
	}
}

const (
	refundAnswer     = `{"refund":{"order":"A1","amount":12.5}}`
	escalationAnswer = `{"escalation":{"team":"billing","reason":"double charge"}}`
)

// members lists the Member of each row.
func members(as []enforce.Attempt) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Member)
	}
	return out
}

func TestRunUnionGivesTheChosenMembersGoValue(t *testing.T) {
	for _, tc := range []struct {
		answer string
		want   agent.Union
	}{
		{refundAnswer, agent.Union{Member: "refund", Value: Refund{Order: "A1", Amount: 12.5}}},
		{escalationAnswer, agent.Union{Member: "escalation", Value: Escalation{Team: "billing", Reason: "double charge"}}},
	} {
		t.Run(tc.want.Member, func(t *testing.T) {
			m := agenttest.NewModel(t, agenttest.Reply(tc.answer))
			u, res, err := agent.RunUnion(t.Context(), agent.New(m, agent.WithOutputRetries(1)), "Order A1 arrived broken.", supportMembers()...)
			if err != nil {
				t.Fatal(err)
			}
			if u != tc.want {
				t.Errorf("union = %+v, want %+v", u, tc.want)
			}
			if got, want := members(res.Attempts), []string{tc.want.Member}; !slices.Equal(got, want) {
				t.Errorf("rows' members = %q, want %q", got, want)
			}
		})
	}
}

func TestRunUnionSendsTheUnionsSchemaAndSaysHowToChoose(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply(refundAnswer))
	if _, _, err := agent.RunUnion(t.Context(), agent.New(m), "Order A1 arrived broken.", supportMembers()...); err != nil {
		t.Fatal(err)
	}
	req := m.Requests()[0]
	var schema struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
		MaxProperties int `json:"maxProperties"`
	}
	if err := json.Unmarshal(req.OutputSchema, &schema); err != nil {
		t.Fatalf("OutputSchema %s: %v", req.OutputSchema, err)
	}
	if got := schema.Properties["refund"].Description; got != "money back for an order" {
		t.Errorf("refund's description = %q, want the member's", got)
	}
	if len(schema.Properties) != 2 || schema.MaxProperties != 1 {
		t.Errorf("OutputSchema = %s, want an object of exactly one of the two members", req.OutputSchema)
	}
	if sys := req.Messages[0].Content; !strings.Contains(sys, `Choose one kind of final answer: "refund", "escalation"`) {
		t.Errorf("system message = %q, want it to name the members to choose from", sys)
	}
}

func TestRunUnionCorrectsAnAnswerNamingTwoMembers(t *testing.T) {
	both := `{"refund":{"order":"A1","amount":12.5},"escalation":{"team":"billing","reason":"double charge"}}`
	m := agenttest.NewModel(t, agenttest.Reply(both), agenttest.Reply(escalationAnswer))
	u, res, err := agent.RunUnion(t.Context(), agent.New(m, agent.WithOutputRetries(1)), "Order A1 arrived broken.", supportMembers()...)
	if err != nil {
		t.Fatal(err)
	}
	if u.Member != "escalation" {
		t.Errorf("member = %q, want the second answer's", u.Member)
	}
	first := res.Attempts[0]
	if first.Outcome != enforce.OutcomeRetried || first.Stage != enforce.StageSchemaValidate || first.Path != "" || first.Member != "" {
		t.Errorf("first row = %+v, want retried at schema-validate at the root, naming no member", first)
	}
	corrective := res.Messages[3].Content
	if !strings.Contains(corrective, `the answer names 2 members of the union: give exactly one member, named for your choice: \"refund\", \"escalation\"`) {
		t.Errorf("corrective = %q, want it to say the answer names two members and list them", corrective)
	}
	if got, want := first.CorrectiveMessageHash, fnv.Hex32a(corrective); got != want {
		t.Errorf("hash = %s, want %s of the corrective sent", got, want)
	}
}

func TestRunUnionCorrectsAnAnswerNamingNoMemberWithEachMembersIssues(t *testing.T) {
	bare := `{"order":"A1","amount":"12.5"}` // refund's value, unwrapped, and its amount a string
	m := agenttest.NewModel(t, agenttest.Reply(bare), agenttest.Reply(refundAnswer))
	_, res, err := agent.RunUnion(t.Context(), agent.New(m, agent.WithOutputRetries(1)), "Order A1 arrived broken.", supportMembers()...)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := members(res.Attempts), []string{"", "refund"}; !slices.Equal(got, want) {
		t.Errorf("rows' members = %q, want %q", got, want)
	}
	corrective := res.Messages[3].Content
	for _, want := range []string{
		`the answer names no member of the union`,
		`at "/amount": "as \"refund\": Invalid type. Expected: number, given: string"`,
		`at "/team": "as \"escalation\": team is required"`,
		`at "/reason": "as \"escalation\": reason is required"`,
	} {
		if !strings.Contains(corrective, want) {
			t.Errorf("corrective = %q, want it to contain %q", corrective, want)
		}
	}
}

func TestRunUnionTellsMembersOfOneGoTypeApartByName(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply(`{}`), agenttest.Reply(`{"reject":{"note":"out of stock"}}`))
	u, res, err := agent.RunUnion(t.Context(), agent.New(m, agent.WithOutputRetries(1)), "Approve order A1?",
		agent.Member[Ticket]("approve", "the order goes ahead"), agent.Member[Ticket]("reject", "the order is refused"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (agent.Union{Member: "reject", Value: Ticket{Note: "out of stock"}}); u != want {
		t.Errorf("union = %+v, want %+v", u, want)
	}
	// {} keeps both members' contracts: the correction says so of each.
	corrective := res.Messages[3].Content
	for _, name := range []string{"approve", "reject"} {
		if want := `as \"` + name + `\": the answer keeps this member's contract`; !strings.Contains(corrective, want) {
			t.Errorf("corrective = %q, want it to contain %q", corrective, want)
		}
	}
}

func TestRunUnionHoldsTheMembersGoType(t *testing.T) {
	type Count struct {
		N uint8 `json:"n"`
	}
	m := agenttest.NewModel(t, agenttest.Reply(`{"count":{"n":300}}`), agenttest.Reply(`{"count":{"n":3}}`))
	u, res, err := agent.RunUnion(t.Context(), agent.New(m, agent.WithOutputRetries(1)), "How many?",
		agent.Member[Count]("count", ""), agent.Member[Escalation]("escalation", ""))
	if err != nil {
		t.Fatal(err)
	}
	if u.Value != (Count{N: 3}) {
		t.Errorf("value = %+v, want Count{3}", u.Value)
	}
	if r := res.Attempts[0]; r.Outcome != enforce.OutcomeRetried || r.Path != "/count/n" || r.Member != "count" {
		t.Errorf("first row = %+v, want retried at /count/n (300 does not fit a uint8), member count", r)
	}
}

func TestRunUnionInToolModeOffersOneOutputToolPerMember(t *testing.T) {
	m := agenttest.NewModel(t,
		agenttest.Reply("I will escalate this."), // text: no call
		agenttest.CallTools(agenttest.Call("c1", "refund", `{"order":"A1"}`)),
		agenttest.CallTools(agenttest.Call("c2", "refund", `{"order":"A1","amount":12.5}`)),
	)
	a := agent.New(m, agent.WithOutputTool("final_result"), agent.WithOutputRetries(2))
	u, res, err := agent.RunUnion(t.Context(), a, "Order A1 arrived broken.", supportMembers()...)
	if err != nil {
		t.Fatal(err)
	}
	if want := (agent.Union{Member: "refund", Value: Refund{Order: "A1", Amount: 12.5}}); u != want {
		t.Errorf("union = %+v, want %+v", u, want)
	}
	if got, want := rows(res.Attempts), []row{
		{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageJSONParse, Hashed: true},
		{Attempt: 2, Iteration: 2, Outcome: enforce.OutcomeRetried, Stage: enforce.StageSchemaValidate, Path: "/refund/amount", Hashed: true},
		{Attempt: 3, Iteration: 3, Outcome: enforce.OutcomePassed},
	}; !equalRows(got, want) {
		t.Errorf("rows = %+v, want %+v", got, want)
	}
	if got, want := members(res.Attempts), []string{"", "refund", "refund"}; !slices.Equal(got, want) {
		t.Errorf("rows' members = %q, want %q", got, want)
	}

	req := m.Requests()[0]
	var names []string
	for _, tool := range req.Tools {
		names = append(names, tool.Name)
	}
	if want := []string{"refund", "escalation"}; !slices.Equal(names, want) || !req.RequireToolCall || req.OutputSchema != nil {
		t.Fatalf("tools = %q (RequireToolCall %v, OutputSchema %s), want one per member, a call required, no output schema", names, req.RequireToolCall, req.OutputSchema)
	}
	r, _ := enforce.SchemaFor[Refund]()
	var params, want map[string]any
	json.Unmarshal(req.Tools[0].Parameters, &params)
	json.Unmarshal(r.JSON(), &want)
	if params["$ref"] != want["$ref"] || !strings.HasPrefix(req.Tools[0].Description, "money back for an order") {
		t.Errorf("refund tool = %+v, want the member's schema and description", req.Tools[0])
	}
	// The text reply is corrected by a user message naming every tool; the
	// failed call by its tool result.
	if got := res.Messages[3]; got.Role != agent.RoleUser || !strings.Contains(got.Content, `one of the tools \"refund\", \"escalation\"`) {
		t.Errorf("first correction = %+v, want a user message naming both tools", got)
	}
	if got := res.Messages[5]; got.Role != agent.RoleTool || got.ToolCallID != "c1" || !strings.Contains(got.Content, `Call one of the tools "refund", "escalation"`) {
		t.Errorf("second correction = %+v, want the call's tool result asking for a call of a member's tool", got)
	}
}

func TestRunUnionRefusesWhatCannotBeAUnion(t *testing.T) {
	lookup := agent.NewTool("refund", "a tool", func(_ context.Context, _ struct{}) (string, error) { return "", nil })
	for _, tc := range []struct {
		name    string
		opts    []agent.Option
		members []agent.UnionMember
	}{
		{"one member", nil, supportMembers()[:1]},
		{"a name given twice", nil, []agent.UnionMember{agent.Member[Refund]("refund", ""), agent.Member[Escalation]("refund", "")}},
		{"an invalid name", nil, []agent.UnionMember{agent.Member[Refund]("re fund", ""), agent.Member[Escalation]("escalation", "")}},
		{"a zero member", nil, []agent.UnionMember{{}, agent.Member[Escalation]("escalation", "")}},
		{"another contract", []agent.Option{agent.WithOutputSchema(weatherSchema(t))}, supportMembers()},
		{"a member named as a tool, in tool mode", []agent.Option{agent.WithTools(lookup), agent.WithOutputTool("final_result")}, supportMembers()},
		{"a member named as the output tool", []agent.Option{agent.WithOutputTool("refund")}, supportMembers()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := agenttest.NewModel(t) // never called
			_, res, err := agent.RunUnion(t.Context(), agent.New(m, tc.opts...), "?", tc.members...)
			if !errors.Is(err, agent.ErrInvalidOption) {
				t.Errorf("err = %v, want ErrInvalidOption", err)
			}
			if res == nil {
				t.Error("res = nil, want a Result")
			}
		})
	}
}

func TestRunUnionCutsABareMembersStreamAtItsFirstKey(t *testing.T) {
	bare := `{"team":"billing","reason":"double charge"}`
	m := agenttest.NewStreamingModel(t, agenttest.Reply(bare).InChunks(1), agenttest.Reply(escalationAnswer))
	u, res, err := agent.RunUnion(t.Context(), agent.New(m, agent.WithOutputRetries(1)), "Order A1 arrived broken.", supportMembers()...)
	if err != nil {
		t.Fatal(err)
	}
	if u.Member != "escalation" {
		t.Errorf("member = %q, want escalation", u.Member)
	}
	first := res.Attempts[0]
	if first.Cut == nil || first.Path != "/team" || first.Stage != enforce.StageSchemaValidate {
		t.Fatalf("first row = %+v, want cut at /team, no member of the union", first)
	}
	if c := m.Consumed()[0]; !c.Stopped || c.Bytes != len(`{"team"`) {
		t.Errorf("read %+v of the bare answer, want it stopped at the first key's close (%d bytes)", c, len(`{"team"`))
	}
}

func TestRunUnionWithoutRetriesReturnsTheOutputError(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply(`{}`))
	u, res, err := agent.RunUnion(t.Context(), agent.New(m), "Order A1 arrived broken.", supportMembers()...)
	var oe *enforce.OutputError
	if !errors.As(err, &oe) || oe.Stage != enforce.StageSchemaValidate || oe.Attempts != nil {
		t.Fatalf("err = %v, want an *enforce.OutputError at schema-validate with no rows", err)
	}
	if u != (agent.Union{}) || res == nil || res.Attempts != nil {
		t.Errorf("union = %+v, result %+v: want the zero Union and a Result without rows", u, res)
	}
}

func TestARecordedUnionRunReplaysAsATest(t *testing.T) {
	both := `{"refund":{"order":"A1","amount":12.5},"escalation":{"team":"billing","reason":"double charge"}}`
	m := agenttest.NewModel(t, agenttest.Reply(both), agenttest.Reply(refundAnswer))
	a := agent.New(m, agent.WithOutputRetries(1))
	_, res, err := agent.RunUnion(t.Context(), a, "Order A1 arrived broken.", supportMembers()...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/union-run.json"
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	rec := agenttest.Replay(t, path)
	if got, want := members(rec.Attempts), []string{"", "refund"}; !slices.Equal(got, want) {
		t.Errorf("recorded rows' members = %q, want %q", got, want)
	}
	_, again, err := agent.RunUnion(t.Context(), agent.New(rec.Model, agent.WithOutputRetries(1)), rec.Input, supportMembers()...)
	if err != nil {
		t.Fatal(err)
	}
	rec.Check(t, again)
}

func TestAUnionGivenAsTheOutputSchemaNamesItsMemberOnTheRow(t *testing.T) {
	r, _ := enforce.SchemaFor[Refund]()
	e, _ := enforce.SchemaFor[Escalation]()
	u, err := enforce.Union(enforce.UnionMember{Name: "refund", Schema: r}, enforce.UnionMember{Name: "escalation", Schema: e})
	if err != nil {
		t.Fatal(err)
	}
	m := agenttest.NewModel(t, agenttest.Reply(escalationAnswer))
	res, err := agent.New(m, agent.WithOutputSchema(u), agent.WithOutputRetries(1)).Run(t.Context(), "Order A1 arrived broken.")
	if err != nil {
		t.Fatal(err)
	}
	if got := members(res.Attempts); !slices.Equal(got, []string{"escalation"}) {
		t.Errorf("rows' members = %q, want escalation", got)
	}
}
