package eval_test

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/eval"
)

// A dataset is anyone's file: Offline never panics; when it reports, it
// holds a case per record, its JUnit XML parses back with a test per
// case, a report held against itself moved no case, and each group's
// labels are a square matrix (and a column for failed answers) counting
// no more than its labelled records.
func FuzzOffline(f *testing.F) {
	f.Add([]byte(dataset))
	f.Add([]byte(`{"schema":"city.json","output":"{\"city\":1}","id":"x"}` + "\n" + `{"schema":"city.json","output":"{}","id":"x"}`))
	f.Add([]byte(`{"schema":"../x","output":""}`))
	f.Add([]byte(`{"id":"<&\"]]>","schema":{},"output":"\u0000</failure>"}`))
	files := fstest.MapFS{"city.json": {Data: []byte(cityJSON)}}
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := eval.Offline(t.Context(), bytes.NewReader(data), eval.Options{Repairs: enforce.AllRepairs, Schemas: files})
		if err != nil {
			return
		}
		if len(rep.Cases) != rep.Records {
			t.Fatalf("%d cases of %d records", len(rep.Cases), rep.Records)
		}
		var b strings.Builder
		if err := eval.WriteJUnit(&b, rep); err != nil {
			t.Fatal(err)
		}
		var back struct {
			Tests int `xml:"tests,attr"`
		}
		if err := xml.Unmarshal([]byte(b.String()), &back); err != nil || back.Tests != rep.Records {
			t.Fatalf("the JUnit XML parses back as %d tests (%v), want %d:\n%s", back.Tests, err, rep.Records, b.String())
		}
		d := eval.Compare(rep, rep, 0)
		if len(d.Cases) != 0 || d.Unmatched != 0 || len(d.Regressions()) != 0 {
			t.Fatalf("a report against itself: %+v", d)
		}
		for _, g := range rep.Groups {
			l := g.Labels
			if l == nil {
				continue
			}
			n := 0
			for _, row := range l.Matrix {
				if len(row) != len(l.Labels)+1 {
					t.Fatalf("group %q: a matrix row of %d cells for %d labels", g.Group, len(row), len(l.Labels))
				}
				for _, c := range row {
					n += c
				}
			}
			if len(l.Matrix) != len(l.Labels) || len(l.PerLabel) != len(l.Labels) || n > l.Records || l.Exact > l.Records {
				t.Fatalf("group %q's labels: %+v", g.Group, l)
			}
		}
		b.Reset()
		if err := eval.WriteCompareHTML(&b, rep, d); err != nil {
			t.Fatal(err)
		}
	})
}
