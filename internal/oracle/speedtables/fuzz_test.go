package main

import (
	"io"
	"strings"
	"testing"
)

// FuzzRead: any text read as benchmark output is either refused with an
// error or printed as tables, never a panic.
func FuzzRead(f *testing.F) {
	f.Add("BenchmarkJudgeSideBySide/failing/1MiB-2 \t 1\t 5 ns/op\t 0.5 enforce/gojsonschema\n")
	f.Add("BenchmarkCompileCorpus/jsonschemabench-2 1 5 ns/op 42000 enforce-median-ns 1.07 enforce/gojsonschema-median\n")
	f.Add("BenchmarkX-2 1 NaN x\nBenchmark 1 2 3\n")
	f.Fuzz(func(t *testing.T, in string) {
		r, err := read(strings.NewReader(in))
		if err != nil {
			return
		}
		write(io.Discard, r)
	})
}
