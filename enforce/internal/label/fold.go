package label

import (
	"slices"
	"strings"
	"unicode"
)

// A word written for a label may differ from it in case, and case has
// more than one reading: the simple folding strings.EqualFold applies
// (K, k and the kelvin sign), the full folding that writes ß as ss
// (Straße, STRASSE), and Turkish's, where I is the capital of ı and İ of
// i (KIT is kıt to a Turk). The near-miss repair mends a word to a label
// only when the word spells that label in simple folding and no other
// label under any of the three: a word that two labels' folds meet has
// two readings, and is left for the model to write again.
//
// Each fold is taken of the canonical decomposition of the text (é and
// e followed by U+0301 are the same letter), which is exact for the
// blocks the tables hold (tables.go: Latin-1 to Latin Extended-B, the
// combining diacritical marks, Greek, Cyrillic, Latin Extended
// Additional, Greek Extended): a precomposed letter outside them
// (Hangul, Arabic, Indic scripts, …) is compared as written. Labels
// whose simple fold is the same are refused as one label (New).

// A fold is one reading of case.
type fold int

const (
	simpleFold fold = iota
	fullFold
	turkishFold
	folds // how many there are
)

// keys is s under each fold: two texts are the same under a fold
// exactly when that fold's keys are equal.
func keys(s string) [folds]string {
	c := canonical(s)
	var k [folds]string
	k[simpleFold] = foldRunes(c)
	k[fullFold] = foldRunes(canonical(fullFolded(c)))
	k[turkishFold] = turkish(c)
	return k
}

// foldRunes writes each rune of s as the least rune of its simple
// case-folding orbit.
func foldRunes(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

// foldRune is the least rune of r's case-folding orbit.
func foldRune(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}

// fullFolded is s with each rune whose full case folding is more than
// one rune written as that folding (ß: ss).
func fullFolded(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if f, ok := fullFolds[r]; ok {
			b.WriteString(f)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// turkish is the key of s, canonical, under Turkish case: I (and ı)
// are dotless ı, İ (I followed by U+0307) and i are i; every other rune
// folds as it simply does. (A mark between I and U+0307 is not looked
// past.)
func turkish(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch {
		case r == 'I' && strings.HasPrefix(s[i+1:], "\u0307"):
			b.WriteByte('i')
		case r == '\u0307' && i > 0 && s[i-1] == 'I':
		case r == 'I' || r == 'ı':
			b.WriteRune('ı')
		case r == 'i':
			b.WriteByte('i')
		default:
			b.WriteRune(foldRune(r))
		}
	}
	return b.String()
}

// canonical is s decomposed and its marks in canonical order (NFD), as
// far as the tables reach: a rune they do not decompose is kept, and a
// mark whose combining class they do not hold is a starter.
func canonical(s string) string {
	plain := true
	for _, r := range s {
		if _, ok := decompositions[r]; ok || combiningClasses[r] != 0 {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	var rs []rune
	for _, r := range s {
		if d, ok := decompositions[r]; ok {
			rs = append(rs, []rune(d)...)
		} else {
			rs = append(rs, r)
		}
	}
	// Each run of marks sorted by combining class, stably.
	for i := 0; i < len(rs); {
		j := i
		for j < len(rs) && combiningClasses[rs[j]] != 0 {
			j++
		}
		if j > i+1 {
			slices.SortStableFunc(rs[i:j], func(a, b rune) int { return int(combiningClasses[a]) - int(combiningClasses[b]) })
		}
		i = j + 1
	}
	return string(rs)
}
