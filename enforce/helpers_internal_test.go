package enforce

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Helpers that the package's tests share.

func mustCompileInternal(t testing.TB, schema string) *Schema {
	t.Helper()
	s, err := CompileSchema([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func feed(st *Incremental, text string, size int) (int, error) {
	read := 0
	for i := 0; i < len(text); i += size {
		n, err := st.WriteString(text[i:min(i+size, len(text))])
		read += n
		if err != nil {
			return read, err
		}
	}
	return read, nil
}

// seedAnswers are the answers of the committed corpora: FuzzCheck's and
// the early-abort corpus.
func seedAnswers(t testing.TB) []string {
	var out []string
	files, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzCheck", "*"))
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(raw), "\n") {
			if q, ok := strings.CutPrefix(line, "string("); ok {
				if a, err := strconv.Unquote(strings.TrimSuffix(q, ")")); err == nil {
					out = append(out, a)
				}
			}
		}
	}
	for _, c := range earlyAbortCases(t) {
		out = append(out, c.Answer)
	}
	return out
}

// suiteDir finds the official JSON-Schema-Test-Suite, which is data beside
// the repository, never part of it, skipping t when it is absent.
// ENFORCER_JSON_SCHEMA_TEST_SUITE overrides the default location.
func suiteDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("ENFORCER_JSON_SCHEMA_TEST_SUITE")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "jsonschema-test-suite")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("JSON-Schema-Test-Suite not found at %s; set ENFORCER_JSON_SCHEMA_TEST_SUITE to run it", dir)
	}
	return dir
}

// suiteGroup is one schema of a suite file with its cases.
type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

// readSuite reads the groups of one suite file.
func readSuite(t *testing.T, file string) []suiteGroup {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var groups []suiteGroup
	if err := json.Unmarshal(raw, &groups); err != nil {
		t.Fatalf("%s: %v", filepath.Base(file), err)
	}
	return groups
}
