package enforce_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// FuzzJudgeCall holds argument judging to the never-change rule: a call
// that passes as written is given to the tool byte for byte, with no
// repairs named; a mended one passes as mended, strictly, and a string
// read as the object it holds decodes to exactly what the string held.
func FuzzJudgeCall(f *testing.F) {
	for _, seed := range []string{
		`{"city":"Paris","days":3}`, `{ "city" : "Paris" }`, `"{\"city\":\"Paris\"}"`, `""`, ``,
		"```json\n{\"city\":\"Paris\"}\n```", `{'city': 'Paris',}`, `{city: "Paris"}`, `{"city":"Paris","days":"3"}`,
		`Sure: {"city":"Paris"}`, `"  {\"city\":\"Lyon\"} "`, `{"city":"Pa`, `[]`, `null`,
	} {
		f.Add(seed)
	}
	params := []byte(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"additionalProperties":false}`)
	strict, err := enforce.CompileSchema(params)
	if err != nil {
		f.Fatal(err)
	}
	mending := strict.WithRepairs(enforce.AllRepairs)
	f.Fuzz(func(t *testing.T, args string) {
		l, err := enforce.NewCallLedger(0, 0)
		if err != nil {
			t.Fatal(err)
		}
		v := l.Judge(mending, enforce.Call{Tool: "lookup", ID: "c1", Arguments: args, Iteration: 1})
		asWritten := args
		if asWritten == "" {
			asWritten = "{}"
		}
		if strict.Check(asWritten) == nil {
			if v.Row.Outcome != enforce.OutcomePassed || v.Arguments != asWritten || v.Row.Repaired != 0 {
				t.Fatalf("%q passes as written, but the verdict is %+v, arguments %q", args, v.Row, v.Arguments)
			}
			return
		}
		if v.Row.Outcome != enforce.OutcomePassed {
			if v.Err == nil || v.Message == "" || v.Row.Stage != v.Err.Stage {
				t.Fatalf("%q failed, but its verdict %+v has no failure or message", args, v)
			}
			return
		}
		if v.Row.Repaired == 0 {
			t.Fatalf("%q fails as written, yet passed with no repair named", args)
		}
		if err := strict.Check(v.Arguments); err != nil {
			t.Fatalf("%q mended to %q, which fails strictly: %v", args, v.Arguments, err)
		}
		var held string
		if v.Row.Repaired == enforce.RepairCoerce && json.Unmarshal([]byte(args), &held) == nil {
			var got, want any
			if held == "" || isBlank(held) {
				held = "{}"
			}
			if json.Unmarshal([]byte(v.Arguments), &got) != nil || json.Unmarshal([]byte(held), &want) != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%q read as %q, which is not what the string held", args, v.Arguments)
			}
		}
	})
}

func isBlank(s string) bool {
	for _, c := range s {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

func TestNewCallLedgerRefusesBoundsOutOfRange(t *testing.T) {
	for _, b := range [][2]int{{-1, 0}, {enforce.MaxRetries + 2, 0}, {0, 1}, {0, enforce.MaxRetries + 2}} {
		if _, err := enforce.NewCallLedger(b[0], b[1]); err == nil {
			t.Errorf("NewCallLedger(%d, %d) = nil error", b[0], b[1])
		}
	}
}

func TestACallLedgerCountsFailuresPerToolInARow(t *testing.T) {
	s, err := enforce.CompileSchema([]byte(`{"type":"object","required":["city"]}`))
	if err != nil {
		t.Fatal(err)
	}
	l, _ := enforce.NewCallLedger(2, 0)
	var got []enforce.Outcome
	for _, c := range []enforce.Call{
		{Tool: "a", ID: "1", Arguments: `{}`}, {Tool: "b", ID: "2", Arguments: `{}`}, // one failure each
		{Tool: "a", ID: "3", Arguments: `{"city":"x"}`}, {Tool: "a", ID: "4", Arguments: `{}`}, // a passes: its count starts again
		{Tool: "b", ID: "5", Arguments: `{}`}, // b's second in a row
	} {
		got = append(got, l.Judge(s, c).Row.Outcome)
	}
	want := []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomeRetried, enforce.OutcomePassed, enforce.OutcomeRetried, enforce.OutcomeExhausted}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("outcomes = %v, want %v", got, want)
	}
	if rows := l.Calls(); len(rows) != 5 || rows[4].Tool != "b" || rows[4].CallID != "5" || rows[4].Kind != enforce.KindToolCall {
		t.Errorf("Calls = %+v, want five rows, the last b's call 5", rows)
	}
}
