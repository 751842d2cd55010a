package corpus

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestABenchFilesCategoryIsItsNamesPrefix(t *testing.T) {
	for name, want := range map[string]string{
		"Github_easy---o1234.json":                   "Github_easy",
		"JsonSchemaStore---cityjson.min.schema.json": "JsonSchemaStore",
		"BFCL_java_0.json":                           "BFCL",
		"Handwritten_12.json":                        "Handwritten",
	} {
		if got := category(name); got != want {
			t.Errorf("category(%q) = %q, want %q", name, got, want)
		}
	}
	if !Main("Kubernetes") || Main("BFCL") || Main("Github") {
		t.Error("Main: want the ten categories only")
	}
}

func TestACorpusTheEnvironmentMisnamesSkipsItsTest(t *testing.T) {
	t.Setenv(BenchEnv, filepath.Join(t.TempDir(), "absent.tar.gz"))
	var reader *testing.T
	t.Run("reader", func(t *testing.T) {
		reader = t
		Bench(t, nil)
		t.Error("Bench returned for an absent corpus")
	})
	if !reader.Skipped() {
		t.Error("the reader's test was not skipped")
	}
}

// TestTheDocsNameTheRevisionOfTheDataTheyQuote holds every guide that
// quotes a corpus (README.md and docs/*.md naming it) to the repository
// and revision the corpus's own README states, written "<repository> at
// revision <rev>" (a prefix of the README's revision, or the whole).
func TestTheDocsNameTheRevisionOfTheDataTheyQuote(t *testing.T) {
	guides, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	guides = append([]string{filepath.Join("..", "..", "README.md")}, guides...)
	for _, tt := range []struct {
		name   string
		named  []string                // what a guide quoting it calls it
		readme func(testing.TB) string // the corpus's README
		repos  []string                // the repositories it comes from
	}{
		{"the JSON-Schema-Test-Suite", []string{"JSON-Schema-Test-Suite"},
			func(t testing.TB) string { return filepath.Join(Suite(t), "README.md") },
			[]string{"json-schema-org/JSON-Schema-Test-Suite"}},
		{"JSONSchemaBench", []string{"JSONSchemaBench"},
			func(t testing.TB) string { return filepath.Join(filepath.Dir(benchPath(t)), "README.md") },
			[]string{"guidance-ai/jsonschemabench"}},
		{"the real model outputs", []string{"real completions", "model outputs"},
			func(t testing.TB) string { return filepath.Join(filepath.Dir(modelOutputsPath(t)), "README.md") },
			[]string{"weaviate/structured-rag", "BoundaryML/berkeley-gorilla"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := os.ReadFile(tt.readme(t))
			if err != nil {
				t.Skipf("the corpus has no README to state its revision: %v", err)
			}
			quoted := 0
			for _, guide := range guides {
				text, err := os.ReadFile(guide)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.ContainsFunc(tt.named, func(n string) bool { return strings.Contains(string(text), n) }) {
					continue
				}
				quoted++
				for _, repo := range tt.repos {
					want := readmeRevision(t, string(raw), repo)
					got := docRevision(string(text), repo)
					if len(got) < 7 || !strings.HasPrefix(want, got) {
						t.Errorf("%s quotes %s but names revision %q of %s, want \"%s at revision %s\" (its README's)",
							filepath.Base(guide), tt.name, got, repo, repo, want)
					}
				}
			}
			if quoted == 0 {
				t.Errorf("no guide names %s by %q", tt.name, tt.named)
			}
		})
	}
}

// readmeRevision is the revision a corpus README states for repo: the
// hexadecimal id after "commit" or "@" that follows repo's name.
func readmeRevision(t *testing.T, readme, repo string) string {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(repo) + "[^\n]{0,40}?(?:commit|@)\\s*`?([0-9a-f]{7,40})").FindStringSubmatch(readme)
	if m == nil {
		t.Fatalf("the corpus README states no revision for %s", repo)
	}
	return m[1]
}

// docRevision is the revision a guide names for repo ("" for none).
func docRevision(text, repo string) string {
	m := regexp.MustCompile(regexp.QuoteMeta(repo) + `\s+at\s+revision\s+([0-9a-f]+)`).FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	return m[1]
}
