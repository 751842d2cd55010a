package eval_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/eval"
	"github.com/enforcer-go/enforcer/internal/corpus"
)

// BenchmarkOfflineModelOutputs judges the real model outputs corpus
// (5,790 records) as written and with every repair; records/s is the
// figure docs/eval.md quotes.
func BenchmarkOfflineModelOutputs(b *testing.B) {
	data, err := os.ReadFile(corpus.ModelOutputsFile(b))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name    string
		repairs enforce.Repairs
	}{{"AsWritten", 0}, {"AllRepairs", enforce.AllRepairs}} {
		b.Run(bc.name, func(b *testing.B) {
			var n int
			for b.Loop() {
				rep, err := eval.Offline(b.Context(), bytes.NewReader(data), eval.Options{Repairs: bc.repairs})
				if err != nil {
					b.Fatal(err)
				}
				n += rep.Records
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
