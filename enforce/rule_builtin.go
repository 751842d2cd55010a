package enforce

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// Built-in rules: each reads the string values of the answer (or of the
// member at At), never member names, and reports an issue at each
// string's pointer.

// ForbiddenWords returns a rule named name that fails an answer whose
// strings hold any of words as a whole word (not inside a longer one), in
// any case under Unicode simple case folding: ΣΊΣΥΦΟΣ is σίσυφος, ſ is
// s, but STRASSE is not Straße (that takes full folding). A word of
// nothing is never found.
func ForbiddenWords(name string, words ...string) Validator {
	folded := make([][]rune, 0, len(words))
	kept := make([]string, 0, len(words))
	for _, w := range words {
		if f := foldRunes(w); len(f) > 0 {
			folded, kept = append(folded, f), append(kept, w)
		}
	}
	v := stringRule(name, func(s string) []string {
		text := foldRunes(s)
		var found []string
		for i, w := range folded {
			if hasWord(text, w) {
				found = append(found, "forbidden word "+strconv.Quote(kept[i]))
			}
		}
		return found
	})
	judge := forbiddenPrefix(folded, kept) // reads no more than it is given
	v.prefix = func() prefixJudge { return judge }
	return v
}

// AllowedDomains returns a rule named name that fails an answer whose
// strings mention a link (http:// or https://, or a bare www.) to a host
// that is neither one of domains nor a subdomain of one. Hosts compare
// in ASCII case, a trailing dot dropped; an internationalized name is
// compared as written (no punycode).
func AllowedDomains(name string, domains ...string) Validator {
	allowed := make([]string, 0, len(domains))
	for _, d := range domains {
		if d = normalHost(d); d != "" {
			allowed = append(allowed, d)
		}
	}
	ok := func(host string) bool {
		for _, d := range allowed {
			if host == d || strings.HasSuffix(host, "."+d) {
				return true
			}
		}
		return false
	}
	return stringRule(name, func(s string) []string {
		var found []string
		for _, h := range linkHosts(s) {
			if !ok(h) {
				found = append(found, "mentions "+h+", which is not an allowed domain")
			}
		}
		return found
	})
}

// stringRule is a rule named name that asks find of each string value
// of what it judges, and fails each with the messages find returns.
func stringRule(name string, find func(s string) []string) Validator {
	v := NewValidator(name, func(_ context.Context, v any, _ Try) ([]Issue, error) {
		var issues []Issue
		walkStrings(v, "", func(ptr, s string) {
			for _, msg := range find(s) {
				issues = append(issues, Issue{Path: ptr, Message: msg})
			}
		})
		return issues, nil
	})
	v.str = find
	return v
}

// walkStrings calls f with each string in v, a parsed JSON value, and its
// pointer, members in name order.
func walkStrings(v any, ptr string, f func(ptr, s string)) {
	switch n := v.(type) {
	case string:
		f(ptr, n)
	case []any:
		for i, e := range n {
			walkStrings(e, ptr+"/"+strconv.Itoa(i), f)
		}
	case map[string]any:
		names := make([]string, 0, len(n))
		for k := range n {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			walkStrings(n[k], ptr+"/"+jsonvalue.EscapePointer(k), f)
		}
	}
}

// foldRunes is s with each rune replaced by the least rune of its simple
// case folding orbit, so two strings equal under simple folding are
// equal.
func foldRunes(s string) []rune {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		out = append(out, least)
	}
	return out
}

// hasWord reports whether w occurs in text as a whole word: where w
// begins (ends) with a letter or digit, the rune before (after) it is
// none.
func hasWord(text, w []rune) bool {
	for i := 0; i+len(w) <= len(text); i++ {
		if !equalRunes(text[i:i+len(w)], w) {
			continue
		}
		if wordRune(w[0]) && i > 0 && wordRune(text[i-1]) {
			continue
		}
		if end := i + len(w); wordRune(w[len(w)-1]) && end < len(text) && wordRune(text[end]) {
			continue
		}
		return true
	}
	return false
}

func equalRunes(a, b []rune) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }

// linkHosts returns the hosts of the links in s, in order: after
// http:// or https:// (in any case), or a bare www. at a word's start.
func linkHosts(s string) []string {
	lower := strings.ToLower(s)
	var hosts []string
	for i := 0; i < len(lower); {
		rest := lower[i:]
		var start int
		switch {
		case strings.HasPrefix(rest, "https://"):
			start = i + len("https://")
		case strings.HasPrefix(rest, "http://"):
			start = i + len("http://")
		case strings.HasPrefix(rest, "www.") && (i == 0 || !wordByte(lower[i-1]) && lower[i-1] != '/' && lower[i-1] != '.'):
			start = i
		default:
			i++
			continue
		}
		end := start
		for end < len(lower) && !strings.ContainsRune(" \t\r\n/?#\"'<>()[]{}", rune(lower[end])) {
			end++
		}
		authority := lower[start:end]
		if at := strings.LastIndexByte(authority, '@'); at >= 0 {
			authority = authority[at+1:]
		}
		if c := strings.IndexByte(authority, ':'); c >= 0 {
			authority = authority[:c]
		}
		if h := normalHost(strings.TrimRight(authority, ",;!")); h != "" {
			hosts = append(hosts, h)
		}
		i = max(end, i+1)
	}
	return hosts
}

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80
}

// normalHost is host in lower case without a trailing dot.
func normalHost(host string) string {
	return strings.TrimRight(strings.ToLower(strings.TrimSpace(host)), ".")
}
