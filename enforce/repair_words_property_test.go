package enforce_test

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/enforcer-go/enforcer/enforce"
)

// The repairs that read words — quote, coerce's arrays, label — mend
// only what has one reading (docs/ledger.md, "One reading: quote, coerce
// and label"). These properties generate each family of words with two
// readings and of words with one, and hold the repairs to the rule: the
// first are refused, the second mended to exactly their reading.

// caseVariants is every spelling of word in upper and lower case when
// it is short, else n random ones (and the three usual ones).
func caseVariants(rng *rand.Rand, word string, n int) []string {
	out := []string{strings.ToLower(word), strings.ToUpper(word), strings.ToUpper(word[:1]) + word[1:]}
	if len(word) <= 5 {
		for mask := range 1 << len(word) {
			b := []byte(word)
			for i := range b {
				if mask&(1<<i) != 0 {
					b[i] = byte(unicode.ToUpper(rune(b[i])))
				}
			}
			out = append(out, string(b))
		}
		return out
	}
	for range n {
		b := []byte(word)
		for i := range b {
			if rng.IntN(2) == 0 {
				b[i] = byte(unicode.ToUpper(rune(b[i])))
			}
		}
		out = append(out, string(b))
	}
	return out
}

func TestPropertyQuoteNeverReadsALiteralAsAString(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 3))
	schemas := map[string]string{
		"string or null":    `{"type": ["string", "null"]}`,
		"string or boolean": `{"type": ["string", "boolean"]}`,
		"string or number":  `{"type": ["string", "number"]}`,
		"string":            `{"type": "string"}`,
	}
	for name, sub := range schemas {
		s := mustCompile(t, `{"type": "object", "required": ["v"], "properties": {"v": `+sub+`}}`)
		for _, rs := range []enforce.Repairs{enforce.RepairQuote, enforce.AllRepairs} {
			m := s.WithRepairs(rs)
			for _, lit := range []string{"null", "nil", "none", "true", "false", "nan", "inf", "infinity", "undefined"} {
				for _, w := range caseVariants(rng, lit, 40) {
					answer := `{"v": ` + w + `}`
					if err := m.Check(answer); err != nil {
						continue // refused: the model is asked
					}
					// Passed: only as the literal itself (JSON's, or
					// Python's with the syntax repair), never as the word.
					got, _ := m.Repaired(answer)
					var v struct{ V any }
					if json.Unmarshal([]byte(got), &v) != nil || isString(v.V) {
						t.Errorf("%s, %s: %s passed as %s", name, rs, answer, got)
					}
				}
			}
			for _, yes := range []string{"yes", "no", "on", "off", "y", "n"} {
				for _, w := range caseVariants(rng, yes, 10) {
					answer := `{"v": ` + w + `}`
					got, _ := m.Repaired(answer)
					err := m.Check(answer)
					switch {
					case name == "string or boolean" && err == nil:
						t.Errorf("%s, %s: %s passed as %s, where a boolean is admitted", name, rs, answer, got)
					case name != "string or boolean" && (err != nil || got != `{"v": "`+w+`"}`):
						t.Errorf("%s, %s: %s mended to %s (%v), want the word quoted", name, rs, answer, got, err)
					}
				}
			}
			for range 50 {
				w := randomWord(rng)
				answer := `{"v": ` + w + `}`
				if got, _ := m.Repaired(answer); m.Check(answer) != nil || got != `{"v": "`+w+`"}` {
					t.Errorf("%s, %s: %s mended to %s, want the word quoted", name, rs, answer, got)
				}
			}
		}
	}
}

func isString(v any) bool { _, ok := v.(string); return ok }

// randomWord is a word of letters that spells no literal in any case.
func randomWord(rng *rand.Rand) string {
	for {
		b := make([]byte, 2+rng.IntN(8))
		for i := range b {
			b[i] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[rng.IntN(52)]
		}
		w := strings.ToLower(string(b))
		if !slices.Contains([]string{"null", "nil", "none", "true", "false", "nan", "inf", "infinity", "undefined", "yes", "no", "on", "off"}, w) {
			return string(b)
		}
	}
}

func TestPropertyCoerceReadsAStringifiedArrayExactlyOrNotAtAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 4))
	s := mustCompile(t, `{"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}}`).WithRepairs(enforce.AllRepairs)
	quote := func(v string) string { b, _ := json.Marshal(v); return string(b) }
	item := func() string {
		w := randomWord(rng)
		if rng.IntN(4) == 0 {
			w += [...]string{", ", "; ", " | ", "\n"}[rng.IntN(4)] + randomWord(rng)
		}
		return w
	}
	for range 300 {
		// Double-encoded: one reading, the array itself.
		items := make([]string, rng.IntN(4))
		for i := range items {
			items[i] = item()
		}
		inner, _ := json.Marshal(items)
		if rng.IntN(2) == 0 {
			inner, _ = json.MarshalIndent(items, "", "  ")
		}
		answer := `{"tags": ` + quote(string(inner)) + `}`
		var got struct{ Tags []string }
		text, applied := s.Repaired(answer)
		if err := s.Check(answer); err != nil || json.Unmarshal([]byte(text), &got) != nil || !reflect.DeepEqual(got.Tags, items) && len(items) > 0 || applied != enforce.RepairCoerce {
			t.Errorf("%s mended to %s (%s, %v), want %q", answer, text, applied, err, items)
		}
		// Items joined by a separator, or listed in brackets unquoted:
		// one item or several, two readings.
		words := []string{randomWord(rng), randomWord(rng)}
		for _, listed := range []string{
			strings.Join(words, [...]string{", ", ",", ";", " | ", "\n", "\t"}[rng.IntN(6)]),
			"[" + strings.Join(words, ", ") + "]",
		} {
			answer := `{"tags": ` + quote(listed) + `}`
			if err := s.Check(answer); err == nil {
				text, applied := s.Repaired(answer)
				t.Errorf("%s passed as %s (%s)", answer, text, applied)
			}
		}
		// One word: one reading, an array of it.
		w := randomWord(rng) + " " + randomWord(rng)
		answer = `{"tags": ` + quote(w) + `}`
		if text, _ := s.Repaired(answer); s.Check(answer) != nil || text != `{"tags": [`+quote(w)+`]}` {
			t.Errorf("%s mended to %s, want an array of it", answer, text)
		}
	}
}

// foldUnits are the pieces labels are made of: letters whose case has
// more than one reading (Turkish i, ß, final sigma, the kelvin sign,
// titlecase digraphs, a ligature) and letters composed two ways.
var foldUnits = []string{"a", "t", "i", "ı", "I", "İ", "k", "K", "\u212a", "s", "S", "ss", "ß", "ẞ", "σ", "ς", "Σ", "ǅ", "ǆ", "Ǆ", "ﬁ", "fi", "é", "e\u0301", "É", "ü", "u\u0308"}

// The test's own canonical decomposition and full folding, for the runes
// of foldUnits: an oracle written apart from the label package's.
var (
	testNFD  = strings.NewReplacer("é", "e\u0301", "É", "E\u0301", "ü", "u\u0308", "Ü", "U\u0308", "İ", "I\u0307", "\u212a", "K")
	testFull = strings.NewReplacer("ß", "ss", "ẞ", "ss", "ﬁ", "fi")
)

// reaches reports whether w may be written for label under some reading
// of case: simple folding, full folding, or Turkish casing, each of the
// canonical decomposition.
func reaches(w, label string) bool {
	w, label = testNFD.Replace(w), testNFD.Replace(label)
	turkish := func(s string) string {
		return strings.ToLowerSpecial(unicode.TurkishCase, strings.ReplaceAll(s, "I\u0307", "i"))
	}
	return strings.EqualFold(w, label) ||
		strings.EqualFold(testFull.Replace(strings.ToLower(w)), testFull.Replace(strings.ToLower(label))) ||
		strings.EqualFold(turkish(w), turkish(label))
}

func TestPropertyRepairLabelMendsOnlyAWordOneLabelIsUnderEveryFold(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 5))
	label := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(3) {
			b.WriteString(foldUnits[rng.IntN(len(foldUnits))])
		}
		return b.String()
	}
	// sibling is l with one unit swapped for one its folds may meet.
	siblings := map[string][]string{"i": {"ı", "I", "İ"}, "ı": {"i", "I"}, "I": {"ı", "i"}, "ss": {"ß", "SS"}, "ß": {"ss", "SS", "ẞ"}, "σ": {"ς"}, "é": {"e\u0301", "É"}, "ü": {"u\u0308"}, "fi": {"ﬁ"}, "k": {"\u212a"}}
	sibling := func(l string) string {
		for from, tos := range siblings {
			if strings.Contains(l, from) && rng.IntN(2) == 0 {
				return strings.Replace(l, from, tos[rng.IntN(len(tos))], 1)
			}
		}
		return l + "t"
	}
	written := func(l string) string {
		var w string
		switch rng.IntN(7) {
		case 0:
			w = strings.ToUpper(l)
		case 1:
			w = strings.ToLower(l)
		case 2:
			w = strings.ToUpperSpecial(unicode.TurkishCase, l)
		case 3:
			w = strings.ToLowerSpecial(unicode.TurkishCase, l)
		case 4:
			w = testFull.Replace(strings.ToLower(l))
		case 5:
			w = strings.ToUpper(testFull.Replace(l))
		default:
			var b strings.Builder
			for _, r := range l {
				if rng.IntN(2) == 0 {
					r = unicode.SimpleFold(r)
				}
				b.WriteRune(r)
			}
			w = b.String()
		}
		return [...]string{"", " "}[rng.IntN(2)] + w + [...]string{"", ".", "\n"}[rng.IntN(3)]
	}
	checked, refused, mended := 0, 0, 0
	for range 3000 {
		names := []string{label()}
		for range 1 + rng.IntN(3) {
			if rng.IntN(3) == 0 {
				names = append(names, label())
			} else {
				names = append(names, sibling(names[rng.IntN(len(names))]))
			}
		}
		ls := make([]enforce.Label, len(names))
		for i, n := range names {
			ls[i] = enforce.Label{Name: n}
		}
		s, err := enforce.Choice(ls...)
		same := false
		for i := range names {
			for j := range i {
				same = same || strings.EqualFold(testNFD.Replace(names[i]), testNFD.Replace(names[j]))
			}
		}
		if same != (err != nil) {
			t.Fatalf("Choice(%+q) = %v; labels the same in case and canonical form: %v", names, err, same)
		}
		if err != nil {
			continue
		}
		s = s.WithRepairs(enforce.RepairLabel)
		for range 4 {
			w := written(names[rng.IntN(len(names))])
			want := ""
			if slices.Contains(names, w) {
				want = w
			} else {
				t := strings.TrimSpace(w)
				cands := []string{t}
				if stop, ok := strings.CutSuffix(t, "."); ok {
					cands = append(cands, stop)
				}
				var spelled string
				reached := 0
				for _, n := range names {
					r := false
					for _, c := range cands {
						if strings.EqualFold(c, n) {
							spelled, r = n, true
						}
						r = r || reaches(c, n)
					}
					if r {
						reached++
					}
				}
				if reached == 1 {
					want = spelled
				}
			}
			got, _ := s.Repaired(w)
			err := s.Check(w)
			checked++
			switch {
			case want == "" && err == nil:
				t.Errorf("labels %+q: %+q passed as %+q, but it has no one reading", names, w, got)
			case want != "" && (err != nil || got != want):
				t.Errorf("labels %+q: %+q read as %+q (%v), want %+q", names, w, got, err, want)
			case want == "":
				refused++
			case want != w:
				mended++
			}
		}
	}
	t.Logf("%d written labels: %d refused, %d mended", checked, refused, mended)
	if refused < checked/10 || mended < checked/10 {
		t.Errorf("the families are thin: %d refused and %d mended of %d", refused, mended, checked)
	}
}
