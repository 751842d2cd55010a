package engine

import (
	"path/filepath"
	"testing"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
	"github.com/enforcer-go/enforcer/internal/corpus"
)

// compilesIsSound audits raw and, where Compiles says gojsonschema
// compiles the rewrite, fails t unless it does. It reports whether the
// schema was audited and whether Compiles said so.
func compilesIsSound(t *testing.T, raw []byte, what string) (audited, lazy bool) {
	t.Helper()
	doc, err := jsonvalue.Parse(string(raw))
	if err != nil {
		return false, false
	}
	a, err := NewAuditor(doc)
	if err != nil {
		return false, false
	}
	tree, err := a.Audit()
	if err != nil {
		return false, false
	}
	if !Compiles(tree, a.Target) {
		return true, false
	}
	if _, err := Compile(deepCopy(tree), a.Target); err != nil {
		t.Errorf("%s: Compiles says gojsonschema compiles %s; it refuses it: %v", what, raw, err)
	}
	return true, true
}

// TestCompilesIsSoundOnTheCorpora: on the JSON-Schema-Test-Suite and
// JSONSchemaBench, gojsonschema compiles every audited schema Compiles
// says it does (and Compiles says so of most).
func TestCompilesIsSoundOnTheCorpora(t *testing.T) {
	audited, lazy := 0, 0
	for _, draft := range []string{"draft4", "draft6", "draft7", "draft2019-09", "draft2020-12"} {
		files, _ := filepath.Glob(filepath.Join(corpus.Suite(t), draft, "*.json"))
		for _, file := range files {
			for _, g := range corpus.SuiteFile(t, file) {
				au, la := compilesIsSound(t, g.Schema, filepath.Base(file)+" / "+g.Description)
				audited, lazy = audited+b2i(au), lazy+b2i(la)
			}
		}
	}
	for _, bf := range corpus.Bench(t, nil) {
		au, la := compilesIsSound(t, bf.Schema, bf.Name)
		audited, lazy = audited+b2i(au), lazy+b2i(la)
	}
	t.Logf("%d schemas audited, %d of them left to compile lazily", audited, lazy)
	if lazy == 0 {
		t.Error("Compiles said no schema compiles")
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
