package enforce_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"sort"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/internal/corpus"
)

// TestConformance runs the suite's required tests (not optional/, and not
// refRemote, which needs a network). Every case must be judged correctly
// or have its schema refused at compile time: a refusal is a clear error,
// a wrong verdict is a silent lie.
func TestConformance(t *testing.T) {
	root := corpus.Suite(t)
	for _, draft := range []string{"draft7", "draft2020-12"} {
		t.Run(draft, func(t *testing.T) {
			files, err := filepath.Glob(filepath.Join(root, draft, "*.json"))
			if err != nil || len(files) == 0 {
				t.Skipf("no test files for %s", draft)
			}
			sort.Strings(files)
			var judged, refused, wrong int
			refusedBy := map[string]int{}
			for _, file := range files {
				name := filepath.Base(file)
				if name == "refRemote.json" {
					continue
				}
				for _, g := range corpus.SuiteFile(t, file) {
					s, err := enforce.CompileSchema(g.Schema)
					if err != nil {
						var se *enforce.SchemaError
						if !errors.As(err, &se) {
							t.Errorf("%s / %s: CompileSchema returned %T, want *enforce.SchemaError", name, g.Description, err)
							continue
						}
						refused += len(g.Tests)
						key := se.Keyword
						if key == "" {
							key = se.Reason
						}
						refusedBy[key] += len(g.Tests)
						continue
					}
					for _, tc := range g.Tests {
						err := s.Check(string(tc.Data))
						if got := err == nil; got != tc.Valid {
							wrong++
							t.Errorf("%s / %s / %s: valid = %v, want %v (%v)", name, g.Description, tc.Description, got, tc.Valid, err)
							continue
						}
						judged++
					}
				}
			}
			t.Logf("%s: %d judged correctly, %d refused at compile, %d wrong; refused by %v", draft, judged, refused, wrong, refusedBy)
		})
	}
}

// TestConformanceFormats runs the suite's optional format tests for
// draft-07, where format is asserted, and 2020-12's asserted as draft-07
// asserts them. A schema with a format that cannot
// be checked exactly is refused; every other case must be judged right.
func TestConformanceFormats(t *testing.T) {
	root := corpus.Suite(t)
	files, err := filepath.Glob(filepath.Join(root, "draft7", "optional", "format", "*.json"))
	if err != nil || len(files) == 0 {
		t.Skip("no optional format tests for draft7")
	}
	// 2020-12's files hold cases draft-07's lack (duration, and more of
	// hostname); their schemas are {"$schema", "format"}, so without the
	// $schema they assert the format as draft-07 does.
	later, _ := filepath.Glob(filepath.Join(root, "draft2020-12", "optional", "format", "*.json"))
	files = append(files, later...)
	var judged, refused, wrong int
	for _, file := range files {
		name := filepath.Join(filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(file)))), filepath.Base(file))
		for _, g := range corpus.SuiteFile(t, file) {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(g.Schema, &m); err == nil && m["$schema"] != nil {
				delete(m, "$schema")
				g.Schema, _ = json.Marshal(m)
			}
			s, err := enforce.CompileSchema(g.Schema)
			if err != nil {
				var se *enforce.SchemaError
				if !errors.As(err, &se) {
					t.Errorf("%s / %s: CompileSchema returned %T, want *enforce.SchemaError", name, g.Description, err)
				}
				refused += len(g.Tests)
				continue
			}
			for _, tc := range g.Tests {
				if got := s.Check(string(tc.Data)) == nil; got != tc.Valid {
					wrong++
					t.Errorf("%s / %s / %s: valid = %v, want %v (data %s)", name, g.Description, tc.Description, got, tc.Valid, tc.Data)
					continue
				}
				judged++
			}
		}
	}
	t.Logf("optional/format, asserted: %d judged correctly, %d refused at compile, %d wrong", judged, refused, wrong)
}
