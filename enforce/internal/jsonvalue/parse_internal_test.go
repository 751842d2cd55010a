package jsonvalue

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// stdlibDecode decodes s the way encoding/json does for one value, with
// numbers kept as json.Number. ok is false when encoding/json refuses s.
func stdlibDecode(s string) (v any, ok bool) {
	if !json.Valid([]byte(s)) {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// parserMayRefuse reports whether s breaks one of the rules our parser adds
// to encoding/json's: valid UTF-8, no duplicate keys (after unescaping),
// bounded numbers, nesting at most MaxDepth deep.
func parserMayRefuse(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	return breaksAStricterRule(dec)
}

// breaksAStricterRule walks the token stream, since a decoded map
// has already dropped the duplicates.
func breaksAStricterRule(dec *json.Decoder) bool {
	type frame struct {
		keys     map[string]bool
		isObject bool
		wantKey  bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{', '[':
				if top != nil && top.isObject {
					top.wantKey = true
				}
				stack = append(stack, &frame{keys: map[string]bool{}, isObject: tok == '{', wantKey: true})
				if len(stack) > MaxDepth {
					return true
				}
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		case string:
			if top != nil && top.isObject && top.wantKey {
				if top.keys[tok] {
					return true
				}
				top.keys[tok] = true
				top.wantKey = false
				continue
			}
		case json.Number:
			if hugeNumber(string(tok)) {
				return true
			}
		}
		if top != nil && top.isObject {
			top.wantKey = true
		}
	}
}

func hugeNumber(n string) bool {
	if len(n) > MaxNumberLength {
		return true
	}
	i := strings.IndexAny(n, "eE")
	if i < 0 {
		return false
	}
	exp := strings.TrimLeft(strings.TrimLeft(n[i+1:], "+-"), "0")
	return len(exp) > 4 || (len(exp) == 4 && exp > "1000")
}

// TestParseAgreesWithEncodingJSON generates many inputs, valid and broken,
// and requires our parser to accept exactly what encoding/json accepts,
// decoding to the same tree, except where it refuses invalid UTF-8, a
// duplicate key, a number too large to compare exactly or nesting deeper
// than MaxDepth.
func TestParseAgreesWithEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	var accepted, refused, extra int
	for range n {
		s := genJSON(r, 0)
		if r.IntN(3) == 0 {
			s = mutate(r, s)
		}
		want, stdOK := stdlibDecode(s)
		got, err := Parse(s)
		switch {
		case stdOK && err == nil:
			accepted++
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Parse(%q) = %#v, want %#v", s, got, want)
			}
		case stdOK && err != nil:
			if !parserMayRefuse(s) {
				t.Fatalf("Parse(%q) failed (%v), but encoding/json accepts it", s, err)
			}
			extra++
		case !stdOK && err == nil:
			t.Fatalf("Parse(%q) = %#v, but encoding/json refuses it", s, got)
		default:
			refused++
		}
	}
	t.Logf("%d inputs: %d accepted by both, %d refused by both, %d refused only by us (UTF-8, duplicates, huge numbers, depth)", n, accepted, refused, extra)
	if accepted == 0 || refused == 0 || extra == 0 {
		t.Errorf("the generator does not cover all three cases")
	}
}

// FuzzParse holds the parser to encoding/json on arbitrary input: what
// encoding/json accepts as one value the parser accepts, decoding it to
// the same tree, unless it breaks one of the parser's stricter rules;
// what encoding/json refuses the parser refuses.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"id": "AB-1", "items": [{"sku": "x", "qty": 2}]}`, `[1, 2.5e3, -0, "\u00e9", null, true]`, `{"a": 1, "a": 2}`, "\"\xff\"", `1e999999`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, stdOK := stdlibDecode(s)
		got, err := Parse(s)
		switch {
		case stdOK && err == nil:
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Parse(%q) = %#v, want %#v", s, got, want)
			}
		case stdOK && !parserMayRefuse(s):
			t.Fatalf("Parse(%q) failed (%v), but encoding/json accepts it", s, err)
		case !stdOK && err == nil:
			t.Fatalf("Parse(%q) = %#v, but encoding/json refuses it", s, got)
		}
	})
}

var (
	genStrings = []string{
		``, `a`, `é`, `東京`, `😀`, `\"`, `\\`, `\/`, `\b\f\n\r\t`, `\u0061`, `\u00e9`,
		`\ud83d\ude00`, `\ud800`, `\udc00`, `\ud800\u0041`, `a/b`, `~`, "\x7f", "\xff", "\xe2\x82",
		`\u0000`,
	}
	genNumbers = []string{
		`0`, `-0`, `1`, `-1`, `12345678901234567890`, `0.5`, `-0.0`, `1e3`, `1E+3`, `1e-3`,
		`2.5e-308`, `1e308`, `1e1000`, `1e1001`, `1e0001`, `-1e999999999`, `3.141592653589793238462643383279`,
		strings.Repeat("9", 1000), strings.Repeat("9", 1001),
	}
	genKeys = []string{`a`, `b`, `\u0061`, `a\u0062`, `ab`, `A`, ``, `\ud800`, `\udc00`}
	genWS   = []string{``, ` `, "\n", "\t", "\r\n  "}
)

func genJSON(r *rand.Rand, depth int) string {
	ws := func() string { return genWS[r.IntN(len(genWS))] }
	k := r.IntN(8)
	if depth > 3 {
		k = r.IntN(5)
	}
	switch k {
	case 0:
		return `"` + genStrings[r.IntN(len(genStrings))] + `"`
	case 1, 2:
		return genNumbers[r.IntN(len(genNumbers))]
	case 3:
		return []string{`true`, `false`}[r.IntN(2)]
	case 4:
		return `null`
	case 5:
		var b strings.Builder
		b.WriteString("[" + ws())
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteString("," + ws())
			}
			b.WriteString(genJSON(r, depth+1) + ws())
		}
		b.WriteString("]")
		return b.String()
	default:
		var b strings.Builder
		b.WriteString("{" + ws())
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteString("," + ws())
			}
			b.WriteString(`"` + genKeys[r.IntN(len(genKeys))] + `"` + ws() + ":" + ws() + genJSON(r, depth+1) + ws())
		}
		b.WriteString("}")
		return b.String()
	}
}

// mutate breaks s in one of the ways a model's answer tends to break.
func mutate(r *rand.Rand, s string) string {
	if s == "" {
		return s
	}
	b := []byte(s)
	i := r.IntN(len(b))
	junk := []string{"", " ", ",", "}", "]", "\"", ":", "x", "\x00", "\xff", "NaN", "```", "-", ".", "e", "\\", "\\u", "{", "["}
	j := junk[r.IntN(len(junk))]
	switch r.IntN(4) {
	case 0: // delete a byte
		return string(append(b[:i:i], b[i+1:]...))
	case 1: // insert junk
		return string(b[:i]) + j + string(b[i:])
	case 2: // replace a byte with junk
		return string(b[:i]) + j + string(b[i+1:])
	default: // truncate, or append a second value
		if r.IntN(2) == 0 {
			return string(b[:i])
		}
		return s + j
	}
}
