package agent

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// bruteDegenerate is the definition, checked at the same points: the
// first check point at which the last Window bytes have a period p with
// p·Repeats < Window (moved back to where no character is cut), or the
// byte that makes more than Whitespace blank bytes in a row.
func bruteDegenerate(d Degenerate, s string) int {
	stride := max(d.Window/4, 1)
	blank := 0
	for i := 0; i < len(s); i++ {
		if d.Whitespace > 0 {
			if strings.IndexByte(" \t\r\n", s[i]) >= 0 {
				if blank++; blank > d.Whitespace {
					return i + 1
				}
			} else {
				blank = 0
			}
		}
		if k := d.Window; k > 0 && i+1 >= k && (i+1)%stride == 0 {
			w := s[i+1-k : i+1]
			for p := 1; p*d.Repeats < k; p++ {
				if w[p:] == w[:k-p] {
					return i + 1 - partial(s[:i+1])
				}
			}
		}
	}
	return 0
}

// partial is how many bytes at the end of s begin a character s does not
// finish: 1 to 3 bytes that a whole encoding would go on from, or 0.
func partial(s string) int {
	for n := 1; n < utf8.UTFMax && n <= len(s); n++ {
		t := s[len(s)-n:]
		if !utf8.RuneStart(t[0]) {
			continue
		}
		if !utf8.FullRuneInString(t) {
			return n
		}
		return 0
	}
	return 0
}

func TestDegenerateDetectorAgreesWithTheDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 1))
	for n := range 3000 {
		d := Degenerate{Whitespace: r.IntN(6), Window: 4 + r.IntN(40)}
		d.Repeats = 2 + r.IntN(d.Window/2)
		// Text of few letters, with runs of a unit now and then, read in
		// pieces of random sizes.
		var b strings.Builder
		for b.Len() < 300 {
			if r.IntN(4) == 0 {
				unit := string([]rune("aé日")[r.IntN(3)])
				if r.IntN(2) == 0 {
					unit += "b "
				}
				b.WriteString(strings.Repeat(unit, 1+r.IntN(30)))
			} else {
				b.WriteByte(" ab\n"[r.IntN(4)])
			}
		}
		s := b.String()
		want := bruteDegenerate(d, s)
		g := newDegenerate(d)
		got := 0
		for end := 0; end < len(s) && got == 0; {
			end = min(end+1+r.IntN(20), len(s))
			got, _ = g.read(s[:end])
		}
		if got != want {
			t.Fatalf("case %d: %+v on %q: cut at %d, want %d", n, d, s, got, want)
		}
	}
}

// hostile is n bytes that keep the prefix function busiest and never
// repeat within a window: runs of 'a' of growing length, each ended
// by 'b', as "aab aaab aaaab" is, with no blank space.
func hostile(n int) string {
	var b strings.Builder
	for run := 1; b.Len() < n; run++ {
		b.WriteString(strings.Repeat("a", run%200+1))
		b.WriteByte('b')
	}
	return b.String()[:n]
}

func TestDegenerateDetectorReadsFourMiBInOneTable(t *testing.T) {
	s := hostile(4 << 20)
	d := Degenerate{Whitespace: 64, Window: 4096, Repeats: 8}
	if n := bruteDegenerate(Degenerate{Whitespace: 64}, s); n != 0 {
		t.Fatalf("the hostile input has degenerate blank space at %d", n)
	}
	var cut int
	allocs := testing.AllocsPerRun(1, func() {
		g := newDegenerate(d)
		for end := 4096; end <= len(s); end += 4096 {
			if cut, _ = g.read(s[:end]); cut != 0 {
				return
			}
		}
	})
	if cut != 0 {
		t.Fatalf("cut at %d: the input repeats no unit fewer than 512 bytes long over 4096", cut)
	}
	if allocs > 2 {
		t.Errorf("%v allocations reading 4 MiB, want at most 2 (the detector and its table)", allocs)
	}
}

func BenchmarkDegenerate(b *testing.B) {
	s := hostile(1 << 20)
	for _, d := range []Degenerate{{Whitespace: 64}, {Window: 512, Repeats: 8}, {Window: 1 << 16, Repeats: 4}} {
		b.Run("", func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				g := newDegenerate(d)
				for end := 4096; end <= len(s); end += 4096 {
					if n, _ := g.read(s[:end]); n != 0 {
						b.Fatal("cut")
					}
				}
			}
		})
	}
}

// FuzzDegenerateDetector holds the detector to the definition
// (bruteDegenerate) on any answer, read in pieces of any size.
func FuzzDegenerateDetector(f *testing.F) {
	f.Add("{\"city\":\"Paris\",\n\n\n\n\n\n\n\n\n\n\n\n", uint8(4), uint8(0), uint8(0), uint8(3))
	f.Add(`{"tags":["a","a","a","a","a","a","a","a","a","a","a","a"`, uint8(0), uint8(32), uint8(4), uint8(5))
	f.Add("It is fine. It is fine. It is fine. It is fine. It is fine. ", uint8(2), uint8(48), uint8(3), uint8(7))
	f.Add("aab aaab aaaab aaaaab aaaaaab", uint8(1), uint8(16), uint8(2), uint8(1))
	f.Fuzz(func(t *testing.T, s string, ws, window, repeats, piece uint8) {
		d := Degenerate{Whitespace: int(ws % 16), Window: int(window % 64)}
		if d.Window > 0 {
			d.Window = max(d.Window, 3)
			d.Repeats = 2 + int(repeats)%(d.Window-2)
		}
		want := bruteDegenerate(d, s)
		g := newDegenerate(d)
		got, step := 0, 1+int(piece%32)
		for end := 0; end < len(s) && got == 0; {
			end = min(end+step, len(s))
			got, _ = g.read(s[:end])
		}
		if got != want {
			t.Fatalf("%+v on %q: cut at %d, want %d", d, s, got, want)
		}
		if got > 0 && utf8.ValidString(s) && !utf8.ValidString(s[:got]) {
			t.Fatalf("%+v on %q: the %d bytes kept are not valid UTF-8", d, s, got)
		}
	})
}
