package enforce_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	realworld "github.com/enforcer-go/enforcer/internal/corpus"
)

// maxDocStrings bounds the strings of one file's documents judged as
// answers to each of its enums.
const maxDocStrings = 12

// maxLabelsJudged: of a longer enum, the first and last this many labels
// are judged as answers.
const maxLabelsJudged = 16

// stringsIn returns the strings among the values of v, a document.
func stringsIn(v any, out []string) []string {
	switch v := v.(type) {
	case string:
		out = append(out, v)
	case map[string]any:
		for _, x := range v {
			out = stringsIn(x, out)
		}
	case []any:
		for _, x := range v {
			out = stringsIn(x, out)
		}
	}
	return out
}

// The choice kind built from each real string enum of JSONSchemaBench
// (one a Choice refuses aside: labels an answer could not tell apart)
// accepts each of its labels, whole and streamed, and refuses what is no
// label; every string the corpus's documents hold, as an answer, is
// judged the same streamed as whole, and an early verdict on it is one
// Check gives. Under the race detector (or -short) it holds every 8th
// enum: the loop runs on one goroutine, and the detector slows it six
// times; `go test ./enforce/` holds them all.
func TestChoiceHoldsToTheEnumsOfRealSchemas(t *testing.T) {
	files := realworld.Bench(t, nil)
	sets, refused, answers, doomed := 0, 0, 0, 0
	seen := map[string]bool{}
	for _, f := range files {
		var tree any
		if json.Unmarshal(f.Schema, &tree) != nil {
			continue
		}
		var docs []string // read when the file has an enum to judge
		readDocs := func() {
			if docs != nil {
				return
			}
			// The first distinct strings of the file's documents: real
			// answers, most of them written for other members.
			docs = []string{}
			for _, c := range f.Tests {
				var d any
				if json.Unmarshal(c.Data, &d) == nil {
					docs = stringsIn(d, docs)
				}
			}
			slices.Sort(docs)
			if docs = slices.Compact(docs); len(docs) > maxDocStrings {
				docs = docs[:maxDocStrings]
			}
		}
		for _, names := range realworld.StringEnums(tree) {
			key := strings.Join(names, "\x00")
			if seen[key] {
				continue
			}
			if seen[key] = true; (testing.Short() || underRace) && len(seen)%8 != 0 {
				continue // -short and the race detector: every eighth
			}
			readDocs()
			labels := make([]enforce.Label, len(names))
			for i, n := range names {
				labels[i] = enforce.Label{Name: n}
			}
			one, err := enforce.Choice(labels...)
			var se *enforce.SchemaError
			if errors.As(err, &se) {
				refused++
				continue
			}
			if err != nil {
				t.Fatalf("%s: Choice: %v", f.Name, err)
			}
			sets++
			multi, err := enforce.MultiLabel(labels...)
			if err != nil {
				t.Fatalf("%s: MultiLabel: %v", f.Name, err)
			}
			mended := one.WithRepairs(enforce.RepairLabel)
			judged := names
			if len(judged) > 2*maxLabelsJudged {
				judged = append(slices.Clip(names[:maxLabelsJudged]), names[len(names)-maxLabelsJudged:]...)
			}
			for _, n := range judged {
				for _, s := range []*enforce.Schema{one, multi, mended} {
					for _, answer := range []string{n, quoteJSON(n)} {
						if err := s.Check(answer); err != nil {
							t.Fatalf("%s: label %q as %q: %v", f.Name, n, answer, err)
						}
						if early, _, closed := streamed(s, answer, 1); early != nil || closed != nil {
							t.Fatalf("%s: label %q streamed: %v, %v", f.Name, answer, early, closed)
						}
					}
				}
			}
			nonLabel := "not " + names[0]
			if !slices.Contains(names, nonLabel) && one.Check(nonLabel) == nil {
				t.Fatalf("%s: %q passed", f.Name, nonLabel)
			}
			for _, answer := range append(docs, nonLabel, "The answer is "+names[0]+".") {
				answers++
				for _, s := range []*enforce.Schema{one, mended, multi} {
					early, read, closed := streamed(s, answer, 5)
					if early == nil {
						closeIsCheck(t, s, answer, closed)
						continue
					}
					doomed++
					soundEarly(t, s, answer, early, read, []string{names[0], "", "."})
				}
			}
		}
	}
	if sets == 0 {
		t.Fatal("no string enum found")
	}
	t.Logf("%d distinct string enums made choices (%d refused: labels an answer could not tell apart); %d answers judged three ways, %d early verdicts, each sound", sets, refused, answers, doomed)
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
