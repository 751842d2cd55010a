package corpus

import (
	"path/filepath"
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
