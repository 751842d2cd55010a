package native_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/internal/proc"
	"github.com/enforcer-go/enforcer/providers/native"
)

// wideContract is an object of n optional string members.
func wideContract(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"type":"string","maxLength":9}`, i)
	}
	b.WriteString(`}}`)
	return []byte(b.String())
}

// BenchmarkLowerWideObject lowers objects of growing width for every
// profile: the cost is linear in the members (100,000 within 1 s).
func BenchmarkLowerWideObject(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		raw := wideContract(n)
		for _, p := range native.Profiles {
			b.Run(fmt.Sprintf("%d/%s", n, p), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := native.Lower(raw, p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// Lowering an object four times as wide takes about four times as long,
// not sixteen: Lower indexes an object's members instead of scanning
// them per insert. The best of three runs of each width is compared, with
// room for noise (at most 8 times, plus 50 ms).
func TestLowerGrowsLinearlyInAnObjectsMembers(t *testing.T) {
	if testing.Short() {
		t.Skip("lowers objects of 20,000 members")
	}
	took := func(raw []byte) time.Duration {
		best := time.Duration(1<<63 - 1)
		for range 3 {
			start := proc.CPUTime()
			if _, err := native.Lower(raw, native.OpenAI); err != nil {
				t.Fatal(err)
			}
			best = min(best, proc.CPUTime()-start)
		}
		return best
	}
	small, large := took(wideContract(5000)), took(wideContract(20000))
	if large > 8*small+50*time.Millisecond {
		t.Errorf("20,000 members took %v of processor time, 5,000 %v: more than 8 times", large, small)
	} else {
		t.Logf("20,000 members took %v of processor time, 5,000 %v", large, small)
	}
}
