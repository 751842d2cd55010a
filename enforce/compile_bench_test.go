package enforce_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/internal/corpus"
)

// refChain is a schema of n $ref links with no fan-out: each $defs entry
// refers to the one before it, the root to the last, and the first checks
// a string.
func refChain(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"$defs":{"d0":{"type":"string"}`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `,"d%d":{"$ref":"#/$defs/d%d"}`, i, i-1)
	}
	fmt.Fprintf(&b, `},"$ref":"#/$defs/d%d"}`, n)
	return []byte(b.String())
}

// BenchmarkCompileRefChain compiles $ref chains of growing length: the
// cost is linear in the links (10,000 links within 100 ms and 50 MiB).
func BenchmarkCompileRefChain(b *testing.B) {
	for _, n := range []int{1000, 4000, 10000} {
		raw := refChain(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := enforce.CompileSchemaUncached(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCompileAllocations: compiling the order contract allocates what
// the audit needs, and what judges waits for the first answer (719
// allocations when the evaluator, the bound's walk and every count's
// big.Rat were made at compile; 314 when the audit indexed a document
// without identifiers, and gojsonschema's refusals of an enum, a list of
// names and a pattern were checked by encoding and parsing them).
func TestCompileAllocations(t *testing.T) {
	raw := []byte(orderSchema)
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := enforce.CompileSchemaUncached(raw); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 215 {
		t.Errorf("CompileSchema of the order contract: %.0f allocations, want at most 215", allocs)
	}
}

// TestCompileFirstAllocations: compiling the order contract and judging
// its first, passing answer builds the evaluator and the bound's walk
// too (638 allocations when the audit indexed a document without
// identifiers, the evaluator memoised every subschema by location where
// the schema holds no $ref and keyed an enum's strings by encoding/json,
// and the walk kept a map of slices a node).
func TestCompileFirstAllocations(t *testing.T) {
	raw, answer := []byte(orderSchema), orderAnswer()
	allocs := testing.AllocsPerRun(20, func() {
		s, err := enforce.CompileSchemaUncached(raw)
		if err == nil {
			err = s.Check(answer)
		}
		if err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 420 {
		t.Errorf("CompileSchema and Check of the order contract: %.0f allocations, want at most 420", allocs)
	}
}

// BenchmarkCompileModelOutputs compiles each distinct schema of the real
// model outputs (when the corpus is present) in one iteration, each
// anew: allocations and bytes per iteration over all of them.
func BenchmarkCompileModelOutputs(b *testing.B) {
	seen := map[string]bool{}
	var schemas [][]byte
	for _, r := range corpus.ModelOutputs(b) {
		if !seen[string(r.Schema)] {
			seen[string(r.Schema)] = true
			if _, err := enforce.CompileSchemaUncached(r.Schema); err == nil {
				schemas = append(schemas, r.Schema)
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range schemas {
			if _, err := enforce.CompileSchemaUncached(s); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(schemas)), "schemas")
}
