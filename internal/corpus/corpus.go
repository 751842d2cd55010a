// Package corpus reads, for tests, the data kept in a folder shared
// beside the repository's root and never in it: the official
// JSON-Schema-Test-Suite and the real-world corpora of shared/realworld
// (its README says what and whence). Each reader skips its test when its
// data is absent, and an environment variable names another copy. A
// guide that quotes figures from a corpus names where it comes from as
// the corpus's README states it, "<repository> at revision <rev>", and
// this package's test holds it to that. It is internal to this
// repository.
package corpus

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/enforcer-go/enforcer/internal/gowork"
)

// The environment variables that name another copy of each corpus.
const (
	SuiteEnv        = "ENFORCER_JSON_SCHEMA_TEST_SUITE" // a folder
	BenchEnv        = "ENFORCER_SCHEMA_BENCH"           // jsonschemabench-maskbench.tar.gz
	ModelOutputsEnv = "ENFORCER_MODEL_OUTPUTS"          // model-outputs.jsonl
)

// locate is the path env names, else rel below the shared folder beside
// the repository's root (the folder holding all.work, found from the
// working directory up). It skips t when neither is there.
func locate(t testing.TB, env, rel, what string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s is not at %s (%s): %v", what, p, env, err)
		}
		return p
	}
	dir, err := gowork.Root(".")
	if err != nil {
		t.Skipf("%s: %v; set %s", what, err, env)
	}
	p := filepath.Join(dir, "..", "shared", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not at %s (set %s): %v", what, p, env, err)
	}
	return p
}

// Suite is the JSON-Schema-Test-Suite's folder.
func Suite(t testing.TB) string {
	t.Helper()
	return locate(t, SuiteEnv, "jsonschema-test-suite", "the JSON-Schema-Test-Suite")
}

// SuiteGroup is one schema of a suite file with its cases.
type SuiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []Case          `json:"tests"`
}

// Case is a labelled document: one of a suite group's or a bench file's
// tests.
type Case struct {
	Description string          `json:"description"`
	Data        json.RawMessage `json:"data"`
	Valid       bool            `json:"valid"`
}

// SuiteFile reads the groups of one suite file.
func SuiteFile(t testing.TB, file string) []SuiteGroup {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var groups []SuiteGroup
	if err := json.Unmarshal(raw, &groups); err != nil {
		t.Fatalf("%s: %v", filepath.Base(file), err)
	}
	return groups
}

// MainCategories are JSONSchemaBench's ten categories of schemas written
// by real projects (the paper's); the corpus holds five more.
var MainCategories = []string{
	"Github_trivial", "Github_easy", "Github_medium", "Github_hard", "Github_ultra",
	"Glaiveai2K", "Kubernetes", "Snowplow", "WashingtonPost", "JsonSchemaStore",
}

// Main reports whether category is one of MainCategories.
func Main(category string) bool { return slices.Contains(MainCategories, category) }

// BenchFile is one file of JSONSchemaBench: a schema and labelled
// documents.
type BenchFile struct {
	Name     string          `json:"-"` // the file's name
	Category string          `json:"-"` // its name's prefix: Github_easy, Kubernetes, BFCL, …
	Schema   json.RawMessage `json:"schema"`
	Tests    []Case          `json:"tests"`
}

// category is a bench file's category: what its name holds before "---",
// or for the five extra ones (BFCL_java_0.json) before "_".
func category(name string) string {
	if c, _, ok := strings.Cut(name, "---"); ok {
		return c
	}
	c, _, _ := strings.Cut(name, "_")
	return c
}

// benchPath is JSONSchemaBench's archive.
func benchPath(t testing.TB) string {
	t.Helper()
	return locate(t, BenchEnv, filepath.Join("realworld", "jsonschemabench-maskbench.tar.gz"), "JSONSchemaBench")
}

// Bench is the JSONSchemaBench files whose category keep accepts (nil:
// all), in the order of their names. The archive is read once a process
// (a package's corpus tests share it); the files and their bytes are
// shared between calls, so a caller must not modify them.
func Bench(t testing.TB, keep func(category string) bool) []BenchFile {
	t.Helper()
	all := benchFiles(t, benchPath(t))
	if keep == nil {
		return all
	}
	var files []BenchFile
	for _, bf := range all {
		if keep(bf.Category) {
			files = append(files, bf)
		}
	}
	return files
}

// benchCache holds the archives read, by path. Reading one takes
// seconds, several times that under the race detector, and a package
// has several corpus tests.
var benchCache struct {
	sync.Mutex
	files map[string][]BenchFile
}

// benchFiles is every file of the archive at path.
func benchFiles(t testing.TB, path string) []BenchFile {
	t.Helper()
	benchCache.Lock()
	defer benchCache.Unlock()
	if files, ok := benchCache.files[path]; ok {
		return files
	}
	files := readBench(t, path)
	if benchCache.files == nil {
		benchCache.files = map[string][]BenchFile{}
	}
	benchCache.files[path] = files
	return files
}

// readBench decodes every file of the archive at path.
func readBench(t testing.TB, path string) []BenchFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var files []BenchFile
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(h.Name)
		if h.Typeflag != tar.TypeReg || !strings.HasSuffix(name, ".json") {
			continue
		}
		bf := BenchFile{Name: name, Category: category(name)}
		raw := make([]byte, h.Size) // one allocation, not ReadAll's doublings
		if _, err := io.ReadFull(tr, raw); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &bf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files = append(files, bf)
	}
	slices.SortFunc(files, func(a, b BenchFile) int { return strings.Compare(a.Name, b.Name) })
	return files
}

// ModelOutput is one record of the real model outputs corpus: a real
// model's completion and the schema its prompt asked for.
type ModelOutput struct {
	Source string          `json:"source"`
	Model  string          `json:"model"`
	Schema json.RawMessage `json:"schema"`
	Output string          `json:"output"`
}

// ModelOutputsFile is the real model outputs corpus's file (JSON Lines,
// one record as [ModelOutput] a line, with more members), for a test that
// reads it as a dataset; it skips t when the corpus is absent.
func ModelOutputsFile(t testing.TB) string {
	t.Helper()
	return modelOutputsPath(t)
}

// modelOutputsPath is the real model outputs corpus's file.
func modelOutputsPath(t testing.TB) string {
	t.Helper()
	return locate(t, ModelOutputsEnv, filepath.Join("realworld", "model-outputs.jsonl"), "the model outputs corpus")
}

// ModelOutputs reads the real model outputs corpus.
func ModelOutputs(t testing.TB) []ModelOutput {
	t.Helper()
	path := modelOutputsPath(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []ModelOutput
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r ModelOutput
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

// StringEnums returns every enum in v, a schema parsed into any, whose
// values are all strings, in a fixed order (members by name).
func StringEnums(v any) [][]string { return stringEnums(v, nil) }

func stringEnums(v any, out [][]string) [][]string {
	switch v := v.(type) {
	case map[string]any:
		if e, ok := v["enum"].([]any); ok && len(e) > 0 {
			var labels []string
			for _, x := range e {
				s, ok := x.(string)
				if !ok {
					labels = nil
					break
				}
				labels = append(labels, s)
			}
			if labels != nil {
				out = append(out, labels)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			out = stringEnums(v[k], out)
		}
	case []any:
		for _, x := range v {
			out = stringEnums(x, out)
		}
	}
	return out
}
