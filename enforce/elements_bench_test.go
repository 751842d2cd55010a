package enforce_test

import (
	"slices"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/enforce"
)

// BenchmarkElementsPassing1KiB16 is BenchmarkStreamPassing1KiB16 with an
// Elements delivering the answer's items: compare the two side by side.
func BenchmarkElementsPassing1KiB16(b *testing.B) {
	s := mustCompile(b, orderSchema)
	answer := orderAnswer()
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		if got := elements16(b, s, answer); got == 0 {
			b.Fatal("no element delivered")
		}
	}
}

// BenchmarkElementsSideBySide1KiB16 interleaves the Incremental and an
// Elements over one, fed the same 16-byte chunks of the 1 KiB answer, and
// reports each one's time and their ratio: the median of each pair's
// ratio, so that a busy machine, which slows some pairs and not others,
// moves it least.
func BenchmarkElementsSideBySide1KiB16(b *testing.B) {
	s := mustCompile(b, orderSchema)
	answer := orderAnswer()
	var stream, elements time.Duration
	var ratios []float64
	odd := false
	for b.Loop() {
		// Each goes first every other time, so neither pays for the
		// other's garbage more often.
		var st, el time.Duration
		if odd = !odd; odd {
			el = timed(func() { elements16(b, s, answer) })
			st = timed(func() { stream16(b, s, answer) })
		} else {
			st = timed(func() { stream16(b, s, answer) })
			el = timed(func() { elements16(b, s, answer) })
		}
		stream, elements = stream+st, elements+el
		ratios = append(ratios, float64(el)/float64(st))
	}
	slices.Sort(ratios)
	n := float64(b.N)
	b.ReportMetric(float64(stream.Nanoseconds())/n, "stream16-ns/op")
	b.ReportMetric(float64(elements.Nanoseconds())/n, "elements16-ns/op")
	b.ReportMetric(ratios[len(ratios)/2], "elements/stream")
}

// elements16 feeds answer to an Elements over s's items in 16-byte chunks
// and returns how many it delivered.
func elements16(b *testing.B, s *enforce.Schema, answer string) int {
	n := 0
	el, err := enforce.NewElements(s.Stream(), "/items", func(enforce.Element) { n++ })
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < len(answer); i += 16 {
		if _, err := el.WriteString(answer[i:min(i+16, len(answer))]); err != nil {
			b.Fatal(err)
		}
	}
	if err := el.Close(); err != nil {
		b.Fatal(err)
	}
	return n
}

func timed(f func()) time.Duration {
	t0 := time.Now()
	f()
	return time.Since(t0)
}

// stream16 feeds answer to s's Incremental in 16-byte chunks.
func stream16(b *testing.B, s *enforce.Schema, answer string) {
	st := s.Stream()
	for i := 0; i < len(answer); i += 16 {
		if _, err := st.WriteString(answer[i:min(i+16, len(answer))]); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
}
