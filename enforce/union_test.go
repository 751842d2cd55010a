package enforce_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

type uRefund struct {
	Order  string  `json:"order"`
	Amount float64 `json:"amount"`
	Note   *uNote  `json:"note,omitempty"`
}

type uNote struct {
	Text string `json:"text"`
}

type uEscalation struct {
	Team string `json:"team"`
	Note uNote  `json:"note"`
}

// mustSchema returns a func that returns the schema it is given, and
// fails the test on an error.
func mustSchema(t *testing.T) func(*enforce.Schema, error) *enforce.Schema {
	return func(s *enforce.Schema, err error) *enforce.Schema {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

func support(t *testing.T) *enforce.Schema {
	t.Helper()
	r := mustSchema(t)(enforce.SchemaFor[uRefund]())
	e := mustSchema(t)(enforce.SchemaFor[uEscalation]())
	return mustSchema(t)(enforce.Union(
		enforce.UnionMember{Name: "refund", Description: "money back", Schema: r},
		enforce.UnionMember{Name: "escalation", Description: "a person looks", Schema: e}))
}

func issuesOf(t *testing.T, err error) []enforce.Issue {
	t.Helper()
	var ce *enforce.CheckError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a *CheckError", err)
	}
	return ce.Issues
}

func TestUnionJudgesAnAnswerNamingOneMember(t *testing.T) {
	u := support(t)
	tests := []struct {
		name, answer, member string
		first                enforce.Issue // zero: passes
	}{
		{"refund chosen", `{"refund":{"order":"A1","amount":5}}`, "refund", enforce.Issue{}},
		{"escalation chosen", `{"escalation":{"team":"billing","note":{"text":"twice"}}}`, "escalation", enforce.Issue{}},
		{"a member's issue is at its pointer under the member's name", `{"refund":{"order":"A1","amount":"5"}}`, "refund",
			enforce.Issue{Path: "/refund/amount", Keyword: "type", Message: "Invalid type. Expected: number, given: string"}},
		{"two members named", `{"refund":{"order":"A1","amount":5},"escalation":{"team":"b","note":{"text":"x"}}}`, "",
			enforce.Issue{Keyword: "maxProperties", Message: `the answer names 2 members of the union: give exactly one member, named for your choice: "refund", "escalation"`}},
		{"no member named", `{}`, "",
			enforce.Issue{Keyword: "minProperties", Message: `the answer names no member of the union: give exactly one member, named for your choice: "refund", "escalation"`}},
		{"not an object", `[1]`, "", enforce.Issue{Keyword: "type", Message: "Invalid type. Expected: object, given: array"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := u.Member(tt.answer); got != tt.member {
				t.Errorf("Member = %q, want %q", got, tt.member)
			}
			err := u.Check(tt.answer)
			if tt.first == (enforce.Issue{}) {
				if err != nil {
					t.Fatalf("Check: %v, want a pass", err)
				}
				return
			}
			if got := issuesOf(t, err)[0]; got != tt.first {
				t.Errorf("first issue = %+v, want %+v", got, tt.first)
			}
		})
	}
}

func TestUnionListsEachMembersIssuesForAnAnswerNamingNone(t *testing.T) {
	u := support(t)
	// refund's value, given bare: refund's contract keeps it, escalation's
	// does not.
	issues := issuesOf(t, u.Check(`{"order":"A1","amount":5}`))
	var got []string
	for _, is := range issues {
		if strings.HasPrefix(is.Message, "as ") {
			got = append(got, is.Path+" "+is.Message)
		}
	}
	want := []string{
		` as "refund": the answer keeps this member's contract: give it as the value of the member "refund"`,
		`/amount as "escalation": Additional property amount is not allowed`,
		`/note as "escalation": note is required`,
		`/order as "escalation": Additional property order is not allowed`,
		`/team as "escalation": team is required`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("members' issues =\n%q\nwant\n%q", got, want)
	}
	if !slices.IsSortedFunc(issues, func(a, b enforce.Issue) int { return strings.Compare(a.Path, b.Path) }) {
		t.Errorf("issues %+v are not sorted by pointer", issues)
	}
}

func TestUnionHoldsAMembersValueToItsGoType(t *testing.T) {
	type count struct {
		N uint8 `json:"n"`
	}
	c := mustSchema(t)(enforce.SchemaFor[count]())
	e := mustSchema(t)(enforce.SchemaFor[uEscalation]())
	u := mustSchema(t)(enforce.Union(enforce.UnionMember{Name: "count", Schema: c}, enforce.UnionMember{Name: "escalation", Schema: e}))
	if got := issuesOf(t, u.Check(`{"count":{"n":300}}`))[0]; got.Path != "/count/n" || got.Keyword != "type" {
		t.Errorf("issue = %+v, want a type issue at /count/n: 300 does not fit a uint8", got)
	}
	// The Incremental's Close reads a tree it passed value by value: the
	// member's Go type still holds.
	st := u.Stream()
	st.WriteString(`{"count":{"n":300}}`)
	if got := issuesOf(t, st.Close())[0]; got.Path != "/count/n" {
		t.Errorf("Close's issue = %+v, want Check's at /count/n", got)
	}
}

func TestUnionStreamClosesAsCheckJudges(t *testing.T) {
	u := support(t)
	for _, answer := range []string{
		`{"refund":{"order":"A1","amount":5}}`,
		`{}`,
		`{"refund":{"order":"A1","amount":5},"escalation":{"team":"b","note":{"text":"x"}}}`,
		`{"order":"A1","amount":5}`,
		`{"refund":{"order":"A1","amount":"5"}}`,
		`{"refund":`,
	} {
		check := u.Check(answer)
		st := u.Stream()
		var early error
		for i := range len(answer) {
			if _, err := st.WriteString(answer[i : i+1]); err != nil {
				early = err
				break
			}
		}
		closed := st.Close()
		if early == nil {
			if (check == nil) != (closed == nil) || check != nil && check.Error() != closed.Error() {
				t.Errorf("%s: Close = %v, want Check's %v", answer, closed, check)
			}
			continue
		}
		// An early verdict's one issue is among Check's.
		if check == nil || !slices.Contains(issuesOf(t, check), issuesOf(t, early)[0]) {
			t.Errorf("%s: early verdict %v is not among Check's issues (%v)", answer, early, check)
		}
	}
}

func TestUnionRefusesWhatItCannotNest(t *testing.T) {
	r := mustSchema(t)(enforce.SchemaFor[uRefund]())
	e := mustSchema(t)(enforce.SchemaFor[uEscalation]())
	compiled := func(js string) *enforce.Schema { return mustSchema(t)(enforce.CompileSchema([]byte(js))) }
	for _, tc := range []struct {
		name    string
		members []enforce.UnionMember
	}{
		{"one member", []enforce.UnionMember{{Name: "refund", Schema: r}}},
		{"a name given twice", []enforce.UnionMember{{Name: "refund", Schema: r}, {Name: "refund", Schema: e}}},
		{"an invalid name", []enforce.UnionMember{{Name: "re/fund", Schema: r}, {Name: "escalation", Schema: e}}},
		{"no schema", []enforce.UnionMember{{Name: "refund"}, {Name: "escalation", Schema: e}}},
		{"a $ref to the member's root", []enforce.UnionMember{{Name: "tree", Schema: compiled(`{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}}}}`)}, {Name: "escalation", Schema: e}}},
		{"a nested $id", []enforce.UnionMember{{Name: "x", Schema: compiled(`{"type":"object","properties":{"a":{"$id":"http://example.com/a","type":"string"}}}`)}, {Name: "escalation", Schema: e}}},
		{"dialects that differ", []enforce.UnionMember{{Name: "x", Schema: compiled(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`)}, {Name: "escalation", Schema: e}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := enforce.Union(tc.members...)
			var se *enforce.SchemaError
			if !errors.As(err, &se) {
				t.Errorf("err = %v, want a *SchemaError", err)
			}
		})
	}
}

func TestUnionRenamesDefinitionsOfOneNameThatDiffer(t *testing.T) {
	a := mustSchema(t)(enforce.CompileSchema([]byte(`{"type":"object","properties":{"v":{"$ref":"#/$defs/V"}},"required":["v"],"$defs":{"V":{"type":"string"}}}`)))
	b := mustSchema(t)(enforce.CompileSchema([]byte(`{"type":"object","properties":{"v":{"$ref":"#/definitions/V"}},"required":["v"],"definitions":{"V":{"type":"integer"}}}`)))
	u := mustSchema(t)(enforce.Union(enforce.UnionMember{Name: "a", Schema: a}, enforce.UnionMember{Name: "b", Schema: b}))
	var doc struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	json.Unmarshal(u.JSON(), &doc)
	if len(doc.Defs) != 2 {
		t.Errorf("$defs = %s, want V and a renamed V", u.JSON())
	}
	for answer, pass := range map[string]bool{`{"a":{"v":"x"}}`: true, `{"b":{"v":1}}`: true, `{"a":{"v":1}}`: false, `{"b":{"v":"x"}}`: false} {
		if got := u.Check(answer) == nil; got != pass {
			t.Errorf("Check(%s) passes = %v, want %v (each member keeps its own V)", answer, got, pass)
		}
	}
}

func TestUnionKeepsAMembersValidatorsAtItsMember(t *testing.T) {
	r := mustSchema(t)(enforce.SchemaFor[uRefund]())
	positive := enforce.NewValidator("positive", func(_ context.Context, v uRefund, _ enforce.Try) ([]enforce.Issue, error) {
		if v.Amount <= 0 {
			return []enforce.Issue{{Path: "/amount", Message: "a refund is of more than nothing"}}, nil
		}
		return nil, nil
	})
	r = mustSchema(t)(r.WithValidators(positive))
	e := mustSchema(t)(enforce.SchemaFor[uEscalation]())
	u := mustSchema(t)(enforce.Union(enforce.UnionMember{Name: "refund", Schema: r}, enforce.UnionMember{Name: "escalation", Schema: e}))
	ledger, err := enforce.NewLedger(u, 1)
	if err != nil {
		t.Fatal(err)
	}
	v := ledger.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: `{"refund":{"order":"A1","amount":0}}`})
	if v.Row.Outcome != enforce.OutcomeRetried || v.Row.Path != "/refund/amount" || v.Row.Member != "refund" {
		t.Errorf("row = %+v, want retried at /refund/amount, member refund", v.Row)
	}
	v = ledger.Judge(t.Context(), enforce.Answer{Iteration: 2, Given: `{"escalation":{"team":"b","note":{"text":"x"}}}`})
	if v.Row.Outcome != enforce.OutcomePassed || v.Row.Member != "escalation" {
		t.Errorf("row = %+v, want passed, member escalation", v.Row)
	}
}

func TestUnionInToolModeCorrectsWithACallOfAMembersTool(t *testing.T) {
	u := support(t)
	ledger, err := enforce.NewLedger(u, 2)
	if err != nil {
		t.Fatal(err)
	}
	v := ledger.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: "I'd refund it.", NoCall: true})
	if got := v.Row; got.Stage != enforce.StageJSONParse || got.Error != `the reply is text, not a call to one of the tools "refund", "escalation"` {
		t.Errorf("row = %+v, want json-parse naming every member's tool", got)
	}
	v = ledger.Judge(t.Context(), enforce.Answer{Iteration: 2, Given: `{"refund":{"order":"A1"}}`, Tool: "refund"})
	if !strings.Contains(v.Corrective, `Call one of the tools "refund", "escalation", the one whose answer you give`) || v.Row.Member != "refund" {
		t.Errorf("corrective = %q (member %q), want it to ask for a call of a member's tool", v.Corrective, v.Row.Member)
	}
}
