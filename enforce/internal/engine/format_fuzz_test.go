package engine

import (
	"slices"
	"testing"
	"unicode/utf8"
)

// FuzzPunycode holds the encoder and decoder to RFC 3492's round trip:
// what is encoded decodes to itself, and what decodes encodes to a text
// that decodes to the same. A hostname built of either never panics.
func FuzzPunycode(f *testing.F) {
	for _, s := range []string{"", "a", "9ca", "n3h", "b-jfa", "-abc", "9n2bp8q", "zzzzzzzzzzzzzzzzzzzzzzzzzzzz99", "ü", "ab\u3000b", "\U0010FFFF"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if utf8.RuneCountInString(s) > 63 {
			return // a label is at most 63 bytes, so the decoder bounds its state for no more
		}
		if utf8.ValidString(s) {
			u := []rune(s)
			if got, ok := decodePunycode(encodePunycode(u)); !ok || !slices.Equal(got, u) {
				t.Errorf("decode(encode(%q)) = %q, %v", s, string(got), ok)
			}
		}
		if u, ok := decodePunycode(s); ok {
			if again, ok := decodePunycode(encodePunycode(u)); !ok || !slices.Equal(again, u) {
				t.Errorf("%q decodes to %q, whose encoding %q does not decode back", s, string(u), encodePunycode(u))
			}
		}
		isHostname("xn--" + s + ".com")
	})
}
