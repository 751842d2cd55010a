package agent_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/middleware"
)

// fullResult sets every field of a Result, down to every field of each
// element, so a field the JSON loses fails the round trip; checkFull
// fails the test when a field added later is left unset here.
func fullResult() *agent.Result {
	res := &agent.Result{
		TurnID:       "turn-1",
		TurnAttempts: 2,
		Input:        "Weather in Paris?",
		Output:       `{"city":"Paris","tempC":21}`,
		Messages: []agent.Message{
			{Role: agent.RoleAssistant, Content: "Let me look.", Reasoning: "The weather is a lookup.", ReasoningRaw: json.RawMessage(`[{"type":"thinking","thinking":"The weather is a lookup.","signature":"c2ln"}]`), ToolCalls: []agent.ToolCall{
				{ID: "c1", Name: "lookup", Arguments: json.RawMessage(`{"city":"Paris"}`)},
				{ID: "c2", Name: "lookup", Arguments: json.RawMessage(`{"city": "Lyon", "note": "<b>"}`)}, // not compact, HTML
				{ID: "c3", Name: "final_result", Arguments: json.RawMessage(`{"city":"Pa`)},               // cut off: not JSON
			}, ToolCallID: "c0"},
		},
		Iterations: 3,
		InputRules: []enforce.Ruling{{Rule: "injection", Verdict: enforce.RuleWarned, Path: "/x", Reason: "forbidden word",
			Provider: "openai", Model: "gpt-4o-mini", Cost: enforce.Cost{InputTokens: 9, OutputTokens: 2, CachedTokens: 1, ReasoningTokens: 1, LatencyMs: 5, Money: 0.00002}}},
		Attempts: []enforce.Attempt{{
			Attempt: 1, Iteration: 2, Outcome: enforce.OutcomeExhausted, Stage: enforce.StageSchemaValidate,
			Error: "tempC is required", Path: "/tempC", CorrectiveMessageHash: "0c1f2e3d", BrokenBy: "signature",
			Truncated: true, Withheld: "refusal", Reason: enforce.ReasonRepeated, Cut: &enforce.Cut{Bytes: 3, OutputTokens: 2, Thinking: true},
			Repaired: enforce.RepairFence | enforce.RepairCoerce,
			ReadBack: &enforce.ReadBack{Members: []string{"/nick"}},
			Thinking: &enforce.Thinking{Bytes: 40, Inline: true, Answer: true},
			Rules: &enforce.Rulings{{Rule: "polite", Verdict: enforce.RuleWarned, Path: "/nick", Reason: "curt",
				Provider: "openai", Model: "gpt-4o-mini", Cost: enforce.Cost{InputTokens: 20, OutputTokens: 3, CachedTokens: 8, ReasoningTokens: 1, LatencyMs: 40, Money: 0.0001}}},
			Kind:     enforce.KindElements,
			Member:   "refund",
			Mode:     "tool",
			Cost:     enforce.Cost{InputTokens: 100, OutputTokens: 10, CachedTokens: 64, ReasoningTokens: 4, LatencyMs: 250, Money: 0.00125},
			Provider: "openai", Model: "gpt-4o-mini",
			Tool: "lookup", CallID: "c1", // a call's row has these; the round trip covers them here
		}},
		Usage:      agent.Usage{InputTokens: 300, OutputTokens: 30, CachedTokens: 192, ReasoningTokens: 12, Detailed: true},
		Modes:      []agent.ModeChoice{{Iteration: 1, Mode: agent.ModeTool, Why: "refused", Unsupported: agent.ModeNative}},
		FailedCost: enforce.Cost{InputTokens: 100, OutputTokens: 10, CachedTokens: 64, ReasoningTokens: 4, LatencyMs: 250, Money: 0.00125},
		Models: []agent.ModelSpend{{Provider: "openai", Model: "gpt-4o-mini", Requests: 3,
			Usage: agent.Usage{InputTokens: 300, OutputTokens: 30, CachedTokens: 192, ReasoningTokens: 12, Detailed: true}, Money: 0.00375,
			Judge: true, Format: true}}, // a round trip of every field, not a run's
		Money: 0.00375,
		Trace: []middleware.Step{{Name: "signature", Phase: middleware.PhaseOutput, Changed: true, Why: "signed", Text: "x"}},
	}
	res.Calls = []enforce.Attempt{res.Attempts[0]} // the same type: a call's row has every field an answer's has
	return res
}

// checkFull reports every zero field reachable from v.
func checkFull(t *testing.T, path string, v reflect.Value) {
	t.Helper()
	if v.IsZero() {
		t.Errorf("%s is zero: set it in fullResult so the round trip covers it", path)
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		checkFull(t, path, v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).Tag.Get("json") == "-" {
				continue // not part of the JSON form (enforce.Cut.Verdict rides only on an Answer)
			}
			checkFull(t, path+"."+v.Type().Field(i).Name, v.Field(i))
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 { // json.RawMessage
			return
		}
		for i := range v.Len() {
			checkFull(t, path+"[]", v.Index(i))
		}
	}
}

func roundTrip(t *testing.T, res *agent.Result) *agent.Result {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back agent.Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

func TestResultRoundTripsThroughJSON(t *testing.T) {
	t.Run("every field comes back as it was", func(t *testing.T) {
		res := fullResult()
		checkFull(t, "Result", reflect.ValueOf(res))
		if back := roundTrip(t, res); !reflect.DeepEqual(back, res) {
			t.Errorf("after a round trip:\n got %+v\nwant %+v", back, res)
		}
	})
	t.Run("rows recorded but none written stay an empty ledger, not a missing one", func(t *testing.T) {
		res := &agent.Result{Attempts: []enforce.Attempt{}, Messages: []agent.Message{{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{}}}}
		back := roundTrip(t, res)
		if back.Attempts == nil || back.Messages[0].ToolCalls == nil {
			t.Errorf("after a round trip: %+v, want empty, not nil, Attempts and ToolCalls", back)
		}
	})
	t.Run("a result without rows has no attempts key", func(t *testing.T) {
		b, _ := json.Marshal(&agent.Result{})
		var keys map[string]json.RawMessage
		json.Unmarshal(b, &keys)
		if _, ok := keys["attempts"]; ok {
			t.Errorf("JSON = %s, want no attempts key", b)
		}
	})
	t.Run("a run's own result comes back as it was", func(t *testing.T) {
		m := agenttest.NewModel(t,
			agenttest.CallTools(agenttest.Call("", answerTool, `{"city":`)).WithStop(agent.StopLength).WithUsage(5, 6),
			agenttest.CallTools(agenttest.Call("", answerTool, valid)).WithUsage(7, 8),
		)
		a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputTool(answerTool), agent.WithOutputRetries(1))
		res, err := a.Run(t.Context(), "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if back := roundTrip(t, res); !reflect.DeepEqual(back, res) {
			t.Errorf("after a round trip:\n got %+v\nwant %+v", back, res)
		}
	})
}
