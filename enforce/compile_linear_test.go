package enforce_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// refGraph is a schema of n $defs entries, each reaching the one before
// it once by a link of a kind pattern names in turn, and the root the
// last: a graph of references without fan-out, each value checked
// against at most n subschemas.
func refGraph(n int, pattern []int) []byte {
	links := []string{
		`{"$ref":"#/$defs/d%d"}`,
		`{"allOf":[{"$ref":"#/$defs/d%d"}]}`,
		`{"$ref":"#/$defs/d%d","maxLength":9}`, // 2020-12: the sibling applies
		`{"anyOf":[{"$ref":"#/$defs/d%d"},{"type":"null"}]}`,
		`{"properties":{"a":{"$ref":"#/$defs/d%d"}}}`,
		`{"items":{"$ref":"#/$defs/d%d"}}`,
		`{"not":{"not":{"$ref":"#/$defs/d%d"}}}`,
	}
	var b strings.Builder
	b.WriteString(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"d0":{"type":["string","object","array"]}`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `,"d%d":`+links[pattern[i%len(pattern)]%len(links)], i, i-1)
	}
	fmt.Fprintf(&b, `},"$ref":"#/$defs/d%d"}`, n)
	return []byte(b.String())
}

// compileCost is the bytes and allocations CompileSchema takes for raw.
func compileCost(t *testing.T, raw []byte) (bytes, allocs uint64) {
	t.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := enforce.CompileSchemaUncached(raw); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, after.Mallocs - before.Mallocs
}

func TestCompileCostGrowsLinearlyOverReferenceGraphsWithoutFanOut(t *testing.T) {
	// Four times the links may cost at most six times the memory: a cost
	// of n² would cost sixteen. The first pattern is a plain chain, which
	// cost 43 MB at 1,000 links and 635 MB at 4,000 before closures were
	// counted in one pass.
	const n = 1000
	patterns := [][]int{{0}}
	r := rand.New(rand.NewPCG(32, 1))
	for range 5 {
		p := make([]int, 1+r.IntN(12))
		for i := range p {
			p[i] = r.IntN(7)
		}
		patterns = append(patterns, p)
	}
	for _, p := range patterns {
		small, smallAllocs := compileCost(t, refGraph(n, p))
		large, largeAllocs := compileCost(t, refGraph(4*n, p))
		if large > 6*small || largeAllocs > 6*smallAllocs {
			t.Errorf("links of kinds %v: %d links cost %d bytes in %d allocations, %d links %d bytes in %d: more than six times for four times the links",
				p, n, small, smallAllocs, 4*n, large, largeAllocs)
		}
	}
}
