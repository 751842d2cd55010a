package engine

import (
	"encoding/json"
	"regexp/syntax"
	"testing"
)

// plainRegexpSeeds are patterns real schemas write, and near misses
// regexp/syntax refuses.
var plainRegexpSeeds = []string{
	"^ORD-[0-9]+$", `^[a-zA-Z0-9_.+-]+@[a-zA-Z0-9-]+\.[a-zA-Z0-9-.]+$`, "^(a|b)*$", "(|a)", `^\d+(\.\d+)?$`,
	"[z-a]", "a**", "(?i)a", "()", "(a", "a)", "[]a]", "[^]", "[a-]", "[-a]", "[--z]", "[a--]", `\q`, `\`, "^*", "*",
	"[[:alpha:]]", "a{2}", `[\d-z]`, `\Z`, "[a-z-0]", "é", "a|*",
}

// FuzzPlainRegexp: a pattern plainRegexp admits, regexp/syntax parses
// (compilesRegexp skips the parse for it).
func FuzzPlainRegexp(f *testing.F) {
	for _, s := range plainRegexpSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if !plainRegexp(p) {
			return
		}
		if _, err := syntax.Parse(p, syntax.Perl); err != nil {
			t.Errorf("plainRegexp(%q) but syntax.Parse: %v", p, err)
		}
	})
}

// TestPlainRegexp: common patterns are read without a parse, and every
// seed is held to regexp/syntax.
func TestPlainRegexp(t *testing.T) {
	for _, p := range []string{"^ORD-[0-9]+$", `^\d+(\.\d+)?$`, "^(a|b)*$", "^[A-Za-z_][A-Za-z0-9_]*$"} {
		if !plainRegexp(p) {
			t.Errorf("plainRegexp(%q) = false, want true", p)
		}
	}
	for _, p := range plainRegexpSeeds {
		_, err := syntax.Parse(p, syntax.Perl)
		if plainRegexp(p) && err != nil {
			t.Errorf("plainRegexp(%q) but syntax.Parse: %v", p, err)
		}
		if compilesRegexp(p) != (err == nil) {
			t.Errorf("compilesRegexp(%q) = %v, syntax.Parse: %v", p, !(err == nil), err)
		}
	}
}

// FuzzEqKeyString: a string's key, written without encoding/json where
// it is plain, is what encoding/json writes.
func FuzzEqKeyString(f *testing.F) {
	for _, s := range []string{"", "open", "a b", `"`, `\`, "<&>", "\x7f", "\x1f", "é", "\xff", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := EqKey(s)
		want, wantOK := eqKeyJSON(s)
		if got != want || ok != wantOK {
			t.Errorf("EqKey(%q) = %q, %v; encoding/json: %q, %v", s, got, ok, want, wantOK)
		}
	})
}

// TestEncodedIsMarshal: uniqueValues' key is json.Marshal's text.
func TestEncodedIsMarshal(t *testing.T) {
	for _, v := range []any{"", "open", `"`, "<&>", "é", "\xff", nil, true, false, json.Number("1.50"), []any{"a", nil}, map[string]any{"k": "<"}} {
		got, err := encoded(v)
		want, wantErr := json.Marshal(v)
		if got != string(want) || (err == nil) != (wantErr == nil) {
			t.Errorf("encoded(%#v) = %q, %v; json.Marshal: %q, %v", v, got, err, want, wantErr)
		}
	}
}
