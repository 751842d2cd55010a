package main

import (
	"strings"
	"testing"
)

// TestTables: the median and range of each ratio over the runs, in the
// row and column of its benchmark and validator.
func TestTables(t *testing.T) {
	in := `goos: linux
BenchmarkJudgeSideBySide/passing/1KiB-2   	 200	 1355291 ns/op	 0.77 MB/s	 12000 enforce-ns/op	 0.25 enforce/gojsonschema	 1.5 enforce/json.Valid
BenchmarkJudgeSideBySide/passing/1KiB-2   	 200	 1355291 ns/op	 0.77 MB/s	 14000 enforce-ns/op	 0.35 enforce/gojsonschema	 1.1 enforce/json.Valid
BenchmarkJudgeSideBySide/passing/1KiB-2   	 200	 1355291 ns/op	 0.77 MB/s	 13000 enforce-ns/op	 0.30 enforce/gojsonschema	 1.2 enforce/json.Valid
BenchmarkCompileCorpus/modeloutputs-2 	 1	 5 ns/op	 24316 enforce-median-ns	 1.3 enforce/gojsonschema-median
PASS
`
	r, err := read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	write(&b, r)
	for _, want := range []string{
		"| passing 1KiB | 13 µs (12 µs–14 µs) | 0.30× (0.25×–0.35×) | — | — | — | 1.20× (1.10×–1.50×) | — |",
		"| gojsonschema | — | — | 1.30× | — |",
		"| enforce | 24 µs | — | | |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no line %q in\n%s", want, b.String())
		}
	}
	if _, err := read(strings.NewReader("BenchmarkX-2 1 x ns/op\n")); err == nil {
		t.Error("a metric that is no number was read")
	}
}
