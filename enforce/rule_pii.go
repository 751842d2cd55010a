package enforce

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// PIIKind is a kind of personal data [PII] looks for.
type PIIKind string

// The kinds of personal data [PII] finds. docs/guardrails.md gives each
// kind's precision and recall over a corpus of test text.
const (
	// PIIEmail is an address local@domain.tld (ASCII, a top-level
	// domain of two letters or more that is no image or script file's
	// extension).
	PIIEmail PIIKind = "email"
	// PIIPhone is a number written as E.164 (+ and 8 to 15 digits,
	// grouped or not, or 00 for +), as a national number of 9 to 11
	// digits with its trunk 0 and grouped (020 7946 0958, 01 99 00 12
	// 34), or as a North American one, 3-3-4 (with or without 1). A bare
	// run of digits is not a phone number.
	PIIPhone PIIKind = "phone"
	// PIICard is a payment card number: 13 to 19 digits, bare or
	// grouped by spaces or hyphens, a major network's prefix, passing
	// the Luhn check.
	PIICard PIIKind = "card"
	// PIIIBAN is an IBAN: a country's code and length, bare or in groups
	// of four, passing the mod-97 check.
	PIIIBAN PIIKind = "iban"

	// National identity numbers, looked for only when asked for by
	// kind: each country's layout, and its check where it has one.

	// PIISSN is a US Social Security number written 3-2-4, split by
	// hyphens or spaces (no area 000, 666 or 9xx, group 00 or serial
	// 0000). It has no check digit; nine bare digits are not one.
	PIISSN PIIKind = "us-ssn"
	// PIININO is a UK National Insurance number: two letters of the
	// allowed prefixes, six digits (bare or in pairs) and A to D. No
	// check digit.
	PIININO PIIKind = "uk-nino"
	// PIIDNI is a Spanish DNI (8 digits) or NIE (X, Y or Z and 7
	// digits) with its check letter, after a hyphen, a space or none.
	PIIDNI PIIKind = "es-dni"
	// PIINIR is a French social security number (NIR): 13 digits and
	// their mod-97 key, bare or grouped 1 2 2 2 3 3 2 or 13 2; sex 1 or
	// 2, month 01 to 12 or 20.
	PIINIR PIIKind = "fr-nir"
	// PIIAadhaar is an Indian Aadhaar number: 12 digits, the first 2 to
	// 9, passing the Verhoeff check, bare or grouped 4 4 4.
	PIIAadhaar PIIKind = "in-aadhaar"
	// PIISteuerID is a German tax ID (Steuer-ID): 11 digits, the first
	// not 0, one digit of the first ten twice or thrice and the rest at
	// most once, passing ISO 7064's MOD 11,10; bare or grouped 2 3 3 3.
	PIISteuerID PIIKind = "de-steuer-id"
)

// piiKinds are the kinds [PII] looks for, in the order a finding stands
// where two overlap: the surer first (a checksum and a layout over a
// layout alone).
var piiKinds = []PIIKind{PIIEmail, PIIIBAN, PIICard, PIINIR, PIIAadhaar, PIISteuerID, PIIDNI, PIININO, PIISSN, PIIPhone}

// PII returns a rule named name that fails an answer whose strings hold
// personal data of kinds (when none is given: email, phone, card and
// IBAN; national IDs are asked for by kind), with an issue
// per finding naming its kind and byte offset, never the data itself.
// An unknown kind cannot judge: a *[ValidatorError].
func PII(name string, kinds ...PIIKind) Validator {
	want := map[PIIKind]bool{}
	var unknown []PIIKind
	for _, k := range kinds {
		if piiNoun[k] == "" {
			unknown = append(unknown, k)
		}
		want[k] = true
	}
	if len(kinds) == 0 {
		want = map[PIIKind]bool{PIIEmail: true, PIIPhone: true, PIICard: true, PIIIBAN: true}
	}
	find := stringRule(name, func(s string) []string {
		var found []string
		for _, m := range findPII(s, want) {
			found = append(found, fmt.Sprintf("holds %s at byte %d", piiNoun[m.kind], m.start))
		}
		return found
	})
	if len(unknown) == 0 {
		return find
	}
	return NewValidator(name, func(context.Context, any, Try) ([]Issue, error) {
		return nil, fmt.Errorf("unknown PII kinds %q", unknown)
	})
}

var piiNoun = map[PIIKind]string{
	PIIEmail: "an email address",
	PIIPhone: "a phone number",
	PIICard:  "a credit-card number",
	PIIIBAN:  "an IBAN",

	PIISSN:      "a US Social Security number",
	PIININO:     "a UK National Insurance number",
	PIIDNI:      "a Spanish DNI or NIE",
	PIINIR:      "a French social security number",
	PIIAadhaar:  "an Aadhaar number",
	PIISteuerID: "a German tax ID",
}

// piiMatch is personal data of kind at s[start:end].
type piiMatch struct {
	kind       PIIKind
	start, end int
}

// findPII returns the personal data of the kinds in want that s holds,
// in order of where each begins. Where two findings overlap, the surer
// kind's stands (piiKinds).
func findPII(s string, want map[PIIKind]bool) []piiMatch {
	var all []piiMatch
	for _, k := range piiKinds {
		if !want[k] {
			continue
		}
		var found []piiMatch
		switch k {
		case PIIEmail:
			found = findEmails(s)
		case PIIIBAN:
			found = findIBANs(s)
		case PIICard:
			found = findCards(s)
		case PIIPhone:
			found = findPhones(s)
		default:
			found = findNationalIDs(s, k)
		}
	next:
		for _, m := range found {
			for _, o := range all {
				if m.start < o.end && o.start < m.end {
					continue next
				}
			}
			all = append(all, m)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].start < all[j].start })
	return all
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool { return isDigit(c) || isUpper(c) || c >= 'a' && c <= 'z' }

// wordAt reports whether a word may begin at s[i]: no letter, digit or
// byte of a multibyte rune is before it.
func wordAt(s string, i int) bool { return i == 0 || !isAlnum(s[i-1]) && s[i-1] < 0x80 }

// wordEnds reports whether a word may end before s[i].
func wordEnds(s string, i int) bool { return i == len(s) || !isAlnum(s[i]) && s[i] < 0x80 }

// fileExtensions are names after a dot that look like a top-level
// domain in image@2x.png but name a file's type.
var fileExtensions = map[string]bool{"png": true, "jpg": true, "jpeg": true, "gif": true, "svg": true, "webp": true, "css": true, "js": true, "ts": true}

func findEmails(s string) []piiMatch {
	var found []piiMatch
	localByte := func(c byte) bool { return isAlnum(c) || strings.IndexByte("._%+-'", c) >= 0 }
	domainByte := func(c byte) bool { return isAlnum(c) || c == '-' || c == '.' }
	for at := strings.IndexByte(s, '@'); at >= 0; {
		start := at
		for start > 0 && localByte(s[start-1]) {
			start--
		}
		for start < at && !isAlnum(s[start]) {
			start++ // a local part begins with a letter or digit
		}
		end := at + 1
		for end < len(s) && domainByte(s[end]) {
			end++
		}
		for end > at+1 && (s[end-1] == '.' || s[end-1] == '-') {
			end--
		}
		local, domain := s[start:at], s[at+1:end]
		if local != "" && s[at-1] != '.' && !strings.Contains(local, "..") && goodDomain(domain) &&
			(start == 0 || s[start-1] < 0x80) && (end == len(s) || s[end] < 0x80) {
			found = append(found, piiMatch{PIIEmail, start, end})
		}
		next := strings.IndexByte(s[at+1:], '@')
		if next < 0 {
			break
		}
		at += 1 + next
	}
	return found
}

// goodDomain reports whether d is a host name of two labels or more
// whose last is a top-level domain's (letters, two or more).
func goodDomain(d string) bool {
	labels := strings.Split(d, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
	}
	tld := strings.ToLower(labels[len(labels)-1])
	for i := range len(tld) {
		if tld[i] < 'a' || tld[i] > 'z' {
			return false
		}
	}
	return len(tld) >= 2 && !fileExtensions[tld]
}

// digitGroups reads, from s[i], digits in groups split by single bytes
// of seps (the first separator read is the only one allowed after), and
// returns where each group ends and the digits read through it.
func digitGroups(s string, i int, seps string, sameSep bool) (ends []int, digits []string) {
	var b strings.Builder
	var sep byte
	for i < len(s) && isDigit(s[i]) {
		for i < len(s) && isDigit(s[i]) {
			b.WriteByte(s[i])
			i++
		}
		ends, digits = append(ends, i), append(digits, b.String())
		if i+1 < len(s) && strings.IndexByte(seps, s[i]) >= 0 && isDigit(s[i+1]) {
			if sameSep && sep != 0 && s[i] != sep {
				break
			}
			sep = s[i]
			i++
			continue
		}
		break
	}
	return ends, digits
}

func findCards(s string) []piiMatch {
	var found []piiMatch
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) || !wordAt(s, i) || i > 0 && strings.IndexByte(".-/+_,", s[i-1]) >= 0 {
			continue
		}
		ends, digits := digitGroups(s, i, " -", true)
		for g := len(ends) - 1; g >= 0; g-- {
			if d := digits[g]; cardNetwork(d) && luhn(d) && wordEnds(s, ends[g]) {
				found = append(found, piiMatch{PIICard, i, ends[g]})
				i = ends[g]
				break
			}
		}
	}
	return found
}

// cardNetwork reports whether d has the length and prefix of a card of
// a major network: Visa, Mastercard, American Express, Discover, JCB,
// Diners Club, UnionPay.
func cardNetwork(d string) bool {
	n := len(d)
	if n < 13 || n > 19 {
		return false
	}
	p2, p4 := atoiPrefix(d, 2), atoiPrefix(d, 4)
	switch {
	case d[0] == '4':
		return n == 13 || n == 16 || n == 19
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720:
		return n == 16
	case p2 == 34 || p2 == 37:
		return n == 15
	case p4 == 6011, p2 == 65, p4/10 >= 644 && p4/10 <= 649:
		return n >= 16
	case p4 >= 3528 && p4 <= 3589:
		return n >= 16
	case p2 == 36 || p2 == 38 || p4/10 >= 300 && p4/10 <= 305:
		return n >= 14
	case p2 == 62:
		return n >= 16
	}
	return false
}

func atoiPrefix(d string, n int) int {
	v := 0
	for i := 0; i < n && i < len(d); i++ {
		v = v*10 + int(d[i]-'0')
	}
	return v
}

// luhn reports whether the digits d pass the Luhn check.
func luhn(d string) bool {
	sum := 0
	for i := range len(d) {
		v := int(d[len(d)-1-i] - '0')
		if i%2 == 1 {
			if v *= 2; v > 9 {
				v -= 9
			}
		}
		sum += v
	}
	return sum%10 == 0
}

// ibanLengths is each country's IBAN length (ISO 13616's registry).
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29,
	"BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29,
	"ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28,
	"HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20,
	"LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
	"MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29,
	"RO": 24, "RS": 22, "SA": 24, "SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28,
	"TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}

func findIBANs(s string) []piiMatch {
	var found []piiMatch
	for i := 0; i+4 <= len(s); i++ {
		if !isUpper(s[i]) || !isUpper(s[i+1]) || !isDigit(s[i+2]) || !isDigit(s[i+3]) || !wordAt(s, i) {
			continue
		}
		n, ok := ibanLengths[s[i:i+2]]
		if !ok {
			continue
		}
		// Gather n letters and digits, a single space allowed after
		// each group of four.
		var b strings.Builder
		j := i
		for j < len(s) && b.Len() < n {
			switch c := s[j]; {
			case isDigit(c) || isUpper(c):
				b.WriteByte(c)
				j++
			case c == ' ' && b.Len()%4 == 0 && j+1 < len(s) && s[j-1] != ' ':
				j++
			default:
				n = -1
			}
			if n < 0 {
				break
			}
		}
		if b.Len() == n && wordEnds(s, j) && mod97(b.String()) == 1 {
			found = append(found, piiMatch{PIIIBAN, i, j})
			i = j
		}
	}
	return found
}

// mod97 is ISO 7064's MOD 97-10 of an IBAN: its first four characters
// moved to the end, letters read as 10 to 35.
func mod97(iban string) int {
	r := 0
	for _, c := range iban[4:] + iban[:4] {
		if c >= 'A' {
			r = (r*100 + int(c-'A'+10)) % 97
		} else {
			r = (r*10 + int(c-'0')) % 97
		}
	}
	return r
}

func findPhones(s string) []piiMatch {
	var found []piiMatch
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '+' || c == '(' || isDigit(c)) || !wordAt(s, i) || i > 0 && strings.IndexByte(".-/+_,#$%:", s[i-1]) >= 0 {
			continue
		}
		if end, ok := phoneAt(s, i); ok {
			found = append(found, piiMatch{PIIPhone, i, end})
			i = end
		}
	}
	return found
}

// phoneAt reads a phone number beginning at s[i] and returns where it
// ends: the longest run of digit groups (split by single spaces,
// hyphens, dots or slashes, the first group perhaps in parentheses) that
// reads as a number.
func phoneAt(s string, i int) (int, bool) {
	plus := s[i] == '+'
	j := i
	if plus {
		j++
		if j < len(s) && s[j] == ' ' {
			return 0, false
		}
	}
	var groups []string
	var ends []int
	paren := false
	for j < len(s) {
		open := s[j] == '('
		if open {
			j++
		}
		k := j
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		if k == j || open && (k == len(s) || s[k] != ')') {
			break
		}
		groups = append(groups, s[j:k])
		if open {
			k++
			paren = true
		}
		ends = append(ends, k)
		j = k
		if open && j < len(s) && isDigit(s[j]) {
			continue // (0)89: a group in parentheses needs no separator after
		}
		if j+1 < len(s) && strings.IndexByte(" -./", s[j]) >= 0 && (isDigit(s[j+1]) || s[j+1] == '(') {
			j++
			continue
		}
		break
	}
	for g := len(groups); g > 0; g-- {
		if !wordEnds(s, ends[g-1]) || ends[g-1] < len(s) && s[ends[g-1]] == '@' {
			continue
		}
		if phoneGroups(groups[:g], plus, paren) {
			return ends[g-1], true
		}
	}
	return 0, false
}

// phoneGroups reports whether the digit groups read as a phone number.
func phoneGroups(groups []string, plus, paren bool) bool {
	digits := strings.Join(groups, "")
	n := len(digits)
	switch {
	case plus:
		return n >= 8 && n <= 15 && digits[0] != '0'
	case strings.HasPrefix(digits, "00") && len(groups) > 1:
		return n-2 >= 8 && n-2 <= 15 && digits[2] != '0'
	case len(groups) < 2 && !paren:
		return false // a bare run of digits is an id more often than a number
	case digits[0] == '0':
		if n < 9 || n > 11 {
			return false
		}
		for _, g := range groups {
			if len(g) < 2 || len(g) > 8 {
				return false
			}
		}
		return true
	}
	if len(groups) == 4 && groups[0] == "1" {
		groups = groups[1:]
	}
	return len(groups) == 3 && len(groups[0]) == 3 && len(groups[1]) == 3 && len(groups[2]) == 4 &&
		groups[0][0] >= '2' && groups[1][0] >= '2'
}
