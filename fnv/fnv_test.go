package fnv_test

import (
	"fmt"
	stdfnv "hash/fnv"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/fnv"
)

func TestHex32aMatchesKnownVectors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "811c9dc5"},
		{"a", "e40c292c"},
		{"foobar", "bf9cf968"},
	}
	for _, tt := range tests {
		if got := fnv.Hex32a(tt.in); got != tt.want {
			t.Errorf("Hex32a(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestHex32aZeroPads(t *testing.T) {
	// Search a few inputs for a hash whose top nibble is zero, so the
	// padding path is exercised rather than assumed.
	for i := 0; i < 1<<16; i++ {
		s := fmt.Sprint(i)
		if fnv.Sum32a(s) < 1<<28 {
			got := fnv.Hex32a(s)
			if want := fmt.Sprintf("%08x", fnv.Sum32a(s)); got != want || got[0] != '0' {
				t.Fatalf("Hex32a(%q) = %s, want %s", s, got, want)
			}
			return
		}
	}
	t.Fatal("no input with a small hash found")
}

func TestSum32aAgreesWithHashFNV(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		b := make([]byte, r.IntN(300))
		for j := range b {
			b[j] = byte(r.UintN(256))
		}
		ref := stdfnv.New32a()
		ref.Write(b)
		if got, want := fnv.Sum32a(string(b)), ref.Sum32(); got != want {
			t.Fatalf("Sum32a(%x) = %08x, want %08x", b, got, want)
		}
	}
}

func TestSum32aDoesNotAllocate(t *testing.T) {
	s := strings.Repeat("x", 1024)
	if n := testing.AllocsPerRun(100, func() { fnv.Sum32a(s) }); n != 0 {
		t.Errorf("Sum32a allocated %v times per call, want 0", n)
	}
}

func FuzzSum32a(f *testing.F) {
	f.Add("")
	f.Add("foobar")
	f.Add("\xff\xfe invalid utf-8")
	f.Fuzz(func(t *testing.T, s string) {
		ref := stdfnv.New32a()
		ref.Write([]byte(s))
		if got, want := fnv.Sum32a(s), ref.Sum32(); got != want {
			t.Fatalf("Sum32a(%q) = %08x, want %08x", s, got, want)
		}
		if got, want := fnv.Hex32a(s), fmt.Sprintf("%08x", ref.Sum32()); got != want {
			t.Fatalf("Hex32a(%q) = %s, want %s", s, got, want)
		}
	})
}

func BenchmarkSum32a1KiB(b *testing.B) {
	s := strings.Repeat("x", 1024)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		fnv.Sum32a(s)
	}
}

func ExampleHex32a() {
	fmt.Println(fnv.Hex32a(""))
	fmt.Println(fnv.Hex32a("foobar"))
	// Output:
	// 811c9dc5
	// bf9cf968
}
