package enforce

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// earlyAbortCase is a failing answer of the early-abort corpus: the
// Incremental must give its verdict at the last byte of the first occurrence
// of Through in Answer — the first dooming byte, or the close of the
// first dooming value.
type earlyAbortCase struct {
	Name    string `json:"name"`
	Answer  string `json:"answer"`
	Through string `json:"through"`
}

func earlyAbortCases(t testing.TB) []earlyAbortCase {
	raw, err := os.ReadFile(filepath.Join("testdata", "earlyabort", "answers.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []earlyAbortCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

func earlyAbortSchema(t testing.TB) *Schema {
	raw, err := os.ReadFile(filepath.Join("testdata", "earlyabort", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := CompileSchema(raw)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestEarlyAbortCorpus feeds each failing answer of the corpus in 16-byte
// chunks: the verdict lands exactly where the case says, it is the one
// Check gives (json-parse) or among Check's issues (schema-validate), and
// the mean share of bytes never read is reported.
func TestEarlyAbortCorpus(t *testing.T) {
	s := earlyAbortSchema(t)
	cases := earlyAbortCases(t)
	unread := 0.0
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			n, err := feed(s.Stream(), c.Answer, 16)
			want := strings.Index(c.Answer, c.Through) + len(c.Through)
			if err == nil {
				t.Fatalf("no early verdict; want one after %d of %d bytes", want, len(c.Answer))
			}
			if n != want {
				t.Errorf("the verdict came after %d bytes (%q), want %d (%q)", n, c.Answer[:n], want, c.Answer[:want])
			}
			var ce, whole *CheckError
			if !errors.As(err, &ce) || !errors.As(s.Check(c.Answer), &whole) {
				t.Fatalf("early %v, Check %v: want two *CheckErrors", err, s.Check(c.Answer))
			}
			if ce.Stage == StageJSONParse {
				if !sameVerdict(ce, whole) {
					t.Errorf("early verdict %v, Check %v", ce, whole)
				}
			} else {
				found := false
				for _, is := range whole.Issues {
					found = found || is == ce.Issues[0]
				}
				if whole.Stage != StageSchemaValidate || !found {
					t.Errorf("early issue %+v is not among Check's %s issues %+v", ce.Issues[0], whole.Stage, whole.Issues)
				}
			}
			unread += float64(len(c.Answer)-n) / float64(len(c.Answer))
		})
	}
	t.Logf("%d failing answers: on average %.1f%% of each answer's bytes was never read", len(cases), 100*unread/float64(len(cases)))
}

// TestStreamChecksValuesAsTheyEnd: an Incremental checks each value by the fast
// path as it ends; an object or array whose own keywords need only its
// member names and size, and that passes, is not built (a lazyDoc), yet
// the tree the Incremental gives is the parser's; a member that fails, however
// deep, leaves the answer to the whole-answer judge at Close.
func TestStreamChecksValuesAsTheyEnd(t *testing.T) {
	s := mustCompileInternal(t, `{
		"type": "object", "required": ["a", "b"],
		"properties": {
			"a": {"type": "array", "maxItems": 3, "items": {"type": "object", "required": ["x"], "properties": {"x": {"type": "integer", "minimum": 1}}}},
			"b": {"enum": [{"k": "v"}]}
		}
	}`)
	passing := `{"a": [{"x": 1}, {"x": 2, "y": "free"}], "b": {"k": "v"}}`
	st := s.Stream()
	if _, err := feed(st, passing, 5); err != nil {
		t.Fatal(err)
	}
	if !st.sc.PassedEach() {
		t.Fatal("the passing answer was not passed value by value")
	}
	if !st.sc.Unbuilt() {
		t.Fatal("the passing answer was built")
	}
	doc, ok := st.sc.Whole()
	want, _ := jsonvalue.Parse(passing)
	if !ok || !reflect.DeepEqual(doc, want) {
		t.Fatalf("whole() = %#v, %v; the parser gives %#v", doc, ok, want)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for _, failing := range []string{
		`{"a": [{"x": 1}, {"y": 2}], "b": {"k": "v"}}`, // a required member missing deep down
		`{"a": [{"x": 1}], "b": {"k": "w"}}`,           // an enum of an object
		`{"a": [{"x": 1}]}`,                            // a required member missing at the root
	} {
		st := s.Stream()
		if _, err := feed(st, failing, 5); err != nil {
			// Decided when the failing value closed: the issue is Check's.
			var ce, whole *CheckError
			if !errors.As(err, &ce) || !errors.As(s.Check(failing), &whole) || !slices.Contains(whole.Issues, ce.Issues[0]) {
				t.Fatalf("%s failed early with %v, which Check does not report", failing, err)
			}
			continue
		}
		if st.sc.PassedEach() {
			t.Fatalf("%s was passed value by value", failing)
		}
		if got, want := st.Close(), s.Check(failing); got == nil || !sameVerdict(got, want) {
			t.Fatalf("%s: Close = %v, Check = %v", failing, got, want)
		}
	}
}

// TestEarlyAbortRealWorldLike feeds the failing answers of
// testdata/earlyabort/realworld-like.json — schemas shaped like real ones
// (annotations, x- members, a Snowplow self, oneOf and anyOf, required
// members, uniqueItems) — in 16-byte chunks: each early verdict is
// Check's issue, and the share cut early and of bytes never read is
// reported.
func TestEarlyAbortRealWorldLike(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "earlyabort", "realworld-like.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Answer string          `json:"answer"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	cut, unread := 0, 0.0
	for _, c := range cases {
		s, err := CompileSchema(c.Schema)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		var whole *CheckError
		if !errors.As(s.Check(c.Answer), &whole) {
			t.Fatalf("%s: the answer passes", c.Name)
		}
		n, err := feed(s.Stream(), c.Answer, 16)
		if err == nil {
			t.Logf("%s: no early verdict", c.Name)
			continue
		}
		var ce *CheckError
		if !errors.As(err, &ce) || !slices.Contains(whole.Issues, ce.Issues[0]) {
			t.Errorf("%s: early verdict %v is not among Check's issues %+v", c.Name, err, whole.Issues)
		}
		cut++
		unread += float64(len(c.Answer)-n) / float64(len(c.Answer))
	}
	t.Logf("%d failing answers: %d cut early (%.0f%%); on average %.1f%% of each answer's bytes never read",
		len(cases), cut, 100*float64(cut)/float64(len(cases)), 100*unread/float64(len(cases)))
}
