package enforce

import (
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
