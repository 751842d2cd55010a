package native_test

import (
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
// takes it strict; none enforces "exactly one" (minProperties and
// maxProperties), which the report says and enforcer judges. OpenAI
// strict makes both members required and nullable: the model writes the
// one it did not choose as null, and the read-back removes it.
func TestLowerAUnionReportsThatOnlyEnforcerJudgesExactlyOneMember(t *testing.T) {
	u := supportUnion(t)
	for _, p := range native.Profiles {
		t.Run(string(p), func(t *testing.T) {
			l, err := native.Lower(u.JSON(), p)
			if err != nil {
				t.Fatal(err)
			}
			if l.Report.Mode != native.ModeStrict {
				t.Fatalf("mode = %s (%s), want strict", l.Report.Mode, l.Report.Reason)
			}
			var dropped []string
			for _, k := range l.Report.Keywords {
				if !k.Enforced {
					dropped = append(dropped, k.Pointer+" "+k.Name)
				}
			}
			if want := []string{" minProperties", " maxProperties"}; !slices.Equal(dropped, want) {
				t.Errorf("keywords only enforcer judges = %q, want %q", dropped, want)
			}
			lowered, err := enforce.CompileSchema(l.Schema)
			if err != nil {
				t.Fatalf("lowered schema %s: %v", l.Schema, err)
			}
			answer := `{"refund":{"order":"A1","amount":5}}` // as the model writes it under p
			if p == native.OpenAI {
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
			if p == native.OpenAI {
				wantNullable = []string{"/properties/refund/properties/note", "/properties/refund", "/properties/escalation"}
			}
			if !slices.Equal(l.Report.Nullable, wantNullable) {
				t.Errorf("nullable = %q, want %q", l.Report.Nullable, wantNullable)
			}
		})
	}
}
