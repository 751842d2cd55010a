package native_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/providers/native"
)

type unionRefund struct {
	Order  string  `json:"order"`
	Amount float64 `json:"amount"`
	Note   string  `json:"note,omitempty"`
}

type unionEscalation struct {
	Team string `json:"team"`
}

func supportUnion(t *testing.T) *enforce.Schema {
	t.Helper()
	r, err := enforce.SchemaFor[unionRefund]()
	if err != nil {
		t.Fatal(err)
	}
	e, err := enforce.SchemaFor[unionEscalation]()
	if err != nil {
		t.Fatal(err)
	}
	u, err := enforce.Union(
		enforce.UnionMember{Name: "refund", Description: "money back", Schema: r},
		enforce.UnionMember{Name: "escalation", Schema: e})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// A union's contract is an object of exactly one member. Every profile
// takes it strict. Where a profile takes a union at the root, it is sent
// as anyOf of one-member objects, and the provider enforces "exactly
// one"; OpenAI and Anthropic (and the profiles following their rules)
// want an object at the root, so only
// enforcer judges it there (minProperties, maxProperties), as the report
// says. OpenAI strict makes both members required and nullable: the
// model writes the one it did not choose as null, and the read-back
// removes it.
func TestLowerAUnionSendsExactlyOneMemberWhereTheProfileCanSayIt(t *testing.T) {
	u := supportUnion(t)
	for _, p := range native.Profiles {
		t.Run(string(p), func(t *testing.T) {
			l, err := native.Lower(u.JSON(), p)
			if err != nil {
				t.Fatal(err)
			}
			if p == native.DeepSeek { // takes no schema at all
				if l.Report.Mode != native.ModeNone {
					t.Errorf("mode = %s, want none", l.Report.Mode)
				}
				return
			}
			if l.Report.Mode != native.ModeStrict {
				t.Fatalf("mode = %s (%s), want strict", l.Report.Mode, l.Report.Reason)
			}
			// The profiles that want an object at the root, and of those
			// the ones that make every member required (OpenAI's strict
			// rules, which Groq and OpenRouter follow).
			objectRoot := slices.Contains([]native.Profile{native.OpenAI, native.Anthropic, native.Mistral, native.Groq, native.XAI, native.OpenRouter}, p)
			allRequired := slices.Contains([]native.Profile{native.OpenAI, native.Groq, native.OpenRouter}, p)
			anyOf := !objectRoot
			var count []string
			for _, k := range l.Report.Keywords {
				switch {
				case k.Name == "minProperties" || k.Name == "maxProperties":
					count = append(count, fmt.Sprintf("%s %v %s", k.Name, k.Enforced, k.Note))
				case !k.Enforced:
					t.Errorf("keyword %+v is left out, want only the count of members judged by enforcer alone", k)
				}
			}
			want := []string{"minProperties false ", "maxProperties false "}
			if anyOf {
				want = []string{"minProperties true sent as anyOf of one-member objects", "maxProperties true sent as anyOf of one-member objects"}
			}
			if !slices.Equal(count, want) {
				t.Errorf("the count's keywords = %q, want %q", count, want)
			}
			lowered, err := enforce.CompileSchema(l.Schema)
			if err != nil {
				t.Fatalf("lowered schema %s: %v", l.Schema, err)
			}
			// Where the provider enforces the count, the lowered schema
			// refuses an answer of no member, or two (as the model writes
			// them under p).
			bads := []string{`{}`, `{"refund":{"order":"A1","amount":5},"escalation":{"team":"b"}}`}
			if allRequired {
				bads = []string{`{"refund":null,"escalation":null}`, `{"refund":{"order":"A1","amount":5,"note":null},"escalation":{"team":"b"}}`}
			}
			for _, bad := range bads {
				if refused := lowered.Check(bad) != nil; refused != anyOf {
					t.Errorf("the lowered schema refuses %s: %v, want %v", bad, refused, anyOf)
				}
			}
			answer := `{"refund":{"order":"A1","amount":5}}` // as the model writes it under p
			if allRequired {
				answer = `{"refund":{"order":"A1","amount":5,"note":null},"escalation":null}`
			}
			if err := lowered.Check(answer); err != nil {
				t.Errorf("the lowered schema refuses %s: %v", answer, err)
			}
			text, removed := l.Text(answer)
			if err := u.Check(text); err != nil {
				t.Errorf("read back as %s (removed %v), the union refuses it: %v", text, removed, err)
			}
			if got := u.Member(text); got != "refund" {
				t.Errorf("member = %q, want refund", got)
			}
			wantNullable := []string(nil)
			if allRequired {
				wantNullable = []string{"/properties/refund/properties/note", "/properties/refund", "/properties/escalation"}
			}
			if !slices.Equal(l.Report.Nullable, wantNullable) {
				t.Errorf("nullable = %q, want %q", l.Report.Nullable, wantNullable)
			}
		})
	}
}
