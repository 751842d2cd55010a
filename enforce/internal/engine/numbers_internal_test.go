package engine

import (
	"encoding/json"
	"math/big"
	"regexp"
	"testing"
)

// TestShortcutsAgree: numberSign, countValue and compilesRegexp, which
// skip big.Rat and regexp.Compile where they can, say what those say.
func TestShortcutsAgree(t *testing.T) {
	for _, n := range []string{"0", "-0", "1", "-1", "7", "10", "123456789012345678", "1234567890123456789012", "-98", "1.0", "2.5", "-0.0", "1e2", "1E-2", "-3e0", "0.000"} {
		sign, ok := numberSign(json.Number(n))
		r, rok := new(big.Rat).SetString(n)
		if ok != rok || ok && sign != r.Sign() {
			t.Errorf("numberSign(%s) = %d, %t; big.Rat: %v, %t", n, sign, ok, r, rok)
		}
		got, err := countValue(json.Number(n))
		want := ""
		if rok && r.IsInt() && r.Sign() >= 0 && r.Num().IsInt64() {
			want = r.Num().String()
		}
		if (err == nil) != (want != "") || string(got) != want {
			t.Errorf("countValue(%s) = %q, %v; want %q", n, got, err, want)
		}
	}
	for _, p := range []string{"^a+$", "(", "[a-", `\d{2,3}`, "a{1001}", "(?P<x>a)", `\p{Greek}`, `\pX`, "x**", "(?i)abc"} {
		_, err := regexp.Compile(p)
		if got := compilesRegexp(p); got != (err == nil) {
			t.Errorf("compilesRegexp(%q) = %t; regexp.Compile: %v", p, got, err)
		}
	}
}
