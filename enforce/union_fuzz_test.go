package enforce_test

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// FuzzUnion holds a union's judge to its members' own: an answer passes
// exactly when it is an object of one member, named for a member, whose
// value passes that member's Check, and Member names it then. An
// Incremental fed the answer byte by byte closes as Check judges, or
// stops early at an issue that is among Check's.
func FuzzUnion(f *testing.F) {
	for _, seed := range []string{
		`{"refund":{"order":"A1","amount":5}}`,
		`{"escalation":{"team":"b","note":{"text":"x"}}}`,
		`{"refund":{"order":"A1","amount":5},"escalation":{"team":"b","note":{"text":"x"}}}`,
		`{"order":"A1","amount":5}`,
		`{}`,
		`[]`,
		`{"refund":{"order":"A1","amount":"5"}}`,
		`{"refund":{"order":"A1","amount":5,"note":{"text":"late"}}}`,
		`{"refund":null}`,
		`{"other":{}}`,
	} {
		f.Add(seed)
	}
	r, _ := enforce.SchemaFor[uRefund]()
	e, _ := enforce.SchemaFor[uEscalation]()
	members := map[string]*enforce.Schema{"refund": r, "escalation": e}
	u, err := enforce.Union(
		enforce.UnionMember{Name: "refund", Schema: r},
		enforce.UnionMember{Name: "escalation", Schema: e})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		check := u.Check(answer)
		var ce *enforce.CheckError
		if errors.As(check, &ce) && ce.Stage == enforce.StageJSONParse {
			return // not one JSON value: the members are not asked
		}
		want, member := false, ""
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(answer), &obj) == nil && len(obj) == 1 {
			for k, v := range obj {
				if s, ok := members[k]; ok {
					want, member = s.Check(string(v)) == nil, k
				}
			}
		}
		if got := check == nil; got != want {
			t.Fatalf("Check(%q) passes = %v (%v), want %v: the member's own Check says so", answer, got, check, want)
		}
		if got := u.Member(answer); got != member {
			t.Fatalf("Member(%q) = %q, want %q", answer, got, member)
		}

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
				t.Fatalf("Close = %v, want Check's %v", closed, check)
			}
			return
		}
		var ee *enforce.CheckError
		if check == nil || !errors.As(early, &ee) || !slices.Contains(ce.Issues, ee.Issues[0]) {
			t.Fatalf("early verdict %v is not among Check's issues (%v)", early, check)
		}
	})
}
