package native_test

import (
	"fmt"
	"strings"
	"testing"

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
