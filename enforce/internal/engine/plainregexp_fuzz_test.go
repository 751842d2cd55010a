package engine

import (
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
