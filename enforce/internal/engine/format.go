package engine

import (
	"net/netip"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
	"github.com/xeipuuv/gojsonschema"
)

// FormatPrefix namespaces the format checkers registered below, so that
// gojsonschema's own global checkers stay as they are for any other user
// of it in the same program.
const FormatPrefix = "enforcer/"

var formatMu sync.Mutex

// formats are the checkers of the formats the drafts define, as the RFCs
// they cite define them. gojsonschema's own accept what those do not
// (a bare date as a date-time, any text url.Parse reads as a uri).
var formats = map[string]func(string) bool{
	"date-time":             isDateTime,
	"date":                  isDate,
	"time":                  isTime,
	"duration":              isDuration,
	"email":                 isEmail,
	"hostname":              isHostname,
	"ipv4":                  isIPv4,
	"ipv6":                  isIPv6,
	"uri":                   func(s string) bool { return isURI(s, false, true) },
	"uri-reference":         func(s string) bool { return isURI(s, false, false) },
	"iri":                   func(s string) bool { return isURI(s, true, true) },
	"iri-reference":         func(s string) bool { return isURI(s, true, false) },
	"uri-template":          isURITemplate,
	"uuid":                  isUUID,
	"regex":                 isECMARegex,
	"json-pointer":          isJSONPointer,
	"relative-json-pointer": isRelativeJSONPointer,
}

// inexactFormats are formats whose exact check needs Unicode's IDNA
// tables (RFC 5892), which neither gojsonschema nor this package holds: a
// schema that asserts one is refused rather than judged wrongly.
var inexactFormats = map[string]bool{"idn-hostname": true, "idn-email": true}

// formatName returns the name to compile for format f: one of ours, or,
// for a format the drafts do not define, a checker registered with
// gojsonschema by the program, or f itself, which passes every value, as
// the specification says of an unknown format. Ours, and the wrapper of a
// program's own, constrain strings only, as JSON Schema says formats do;
// gojsonschema applies them to numbers too.
func formatName(f string) string {
	check, ours := formats[f]
	if !ours {
		if !gojsonschema.FormatCheckers.Has(f) || gojsonschema.FormatCheckers.Has(FormatPrefix+f) {
			return formatPrefixed(f)
		}
	}
	name := FormatPrefix + f
	formatMu.Lock()
	defer formatMu.Unlock()
	if !gojsonschema.FormatCheckers.Has(name) {
		if ours {
			gojsonschema.FormatCheckers.Add(name, stringChecker(check))
		} else {
			gojsonschema.FormatCheckers.Add(name, programFormat(f))
		}
	}
	return name
}

// formatPrefixed is the name of f's wrapper once registered, else f.
func formatPrefixed(f string) string {
	if gojsonschema.FormatCheckers.Has(FormatPrefix + f) {
		return FormatPrefix + f
	}
	return f
}

type stringChecker func(string) bool

func (c stringChecker) IsFormat(input any) bool {
	s, ok := input.(string)
	return !ok || c(s)
}

// programFormat is a format checker the program registered with
// gojsonschema itself, applied to strings only.
type programFormat string

func (f programFormat) IsFormat(input any) bool {
	s, ok := input.(string)
	if !ok {
		return true
	}
	return gojsonschema.FormatCheckers.IsFormat(string(f), s)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// atoi2 reads two ASCII digits.
func atoi2(s string) (int, bool) {
	if len(s) != 2 || !isDigits(s) {
		return 0, false
	}
	return int(s[0]-'0')*10 + int(s[1]-'0'), true
}

// isDate is RFC 3339's full-date.
func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' || !isDigits(s[:4]) {
		return false
	}
	y := int(s[0]-'0')*1000 + int(s[1]-'0')*100 + int(s[2]-'0')*10 + int(s[3]-'0')
	m, ok1 := atoi2(s[5:7])
	d, ok2 := atoi2(s[8:10])
	if !ok1 || !ok2 || m < 1 || m > 12 || d < 1 {
		return false
	}
	days := [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return d <= days
}

// isTime is RFC 3339's full-time: a leap second only at 23:59:60 UTC.
func isTime(s string) bool {
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return false
	}
	h, ok1 := atoi2(s[0:2])
	m, ok2 := atoi2(s[3:5])
	sec, ok3 := atoi2(s[6:8])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 {
		return false
	}
	rest := s[8:]
	if strings.HasPrefix(rest, ".") {
		i := 1
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 1 {
			return false
		}
		rest = rest[i:]
	}
	offset := 0
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, ok1 := atoi2(rest[1:3])
		om, ok2 := atoi2(rest[4:6])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return false
		}
		offset = oh*60 + om
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return false
	}
	if sec == 60 {
		utc := ((h*60+m-offset)%(24*60) + 24*60) % (24 * 60)
		return utc == 23*60+59
	}
	return true
}

// isDateTime is RFC 3339's date-time.
func isDateTime(s string) bool {
	return len(s) >= 20 && (s[10] == 'T' || s[10] == 't') && isDate(s[:10]) && isTime(s[11:])
}

// isDuration is RFC 3339's duration (Appendix A):
//
//	duration  = "P" (dur-date / dur-time / dur-week)
//	dur-date  = (dur-day / dur-month / dur-year) [dur-time]
//	dur-time  = "T" (dur-hour / dur-minute / dur-second)
//	dur-year  = 1*DIGIT "Y" [dur-month]
//	dur-month = 1*DIGIT "M" [dur-day]
//	dur-hour  = 1*DIGIT "H" [dur-minute]
//	dur-minute = 1*DIGIT "M" [dur-second]
//
// so the units of the date and of the time are each one contiguous run
// of Y M D and H M S: P1Y2D and PT1H1S skip a unit and are not durations.
func isDuration(s string) bool {
	s, ok := strings.CutPrefix(s, "P")
	if !ok || s == "" {
		return false
	}
	if w, ok := strings.CutSuffix(s, "W"); ok {
		return isDigits(w)
	}
	date, clock, hasT := strings.Cut(s, "T")
	if hasT && clock == "" {
		return false
	}
	// units reads 1*DIGIT unit pairs and reports whether their units, in
	// the order written, are a contiguous run of order.
	units := func(s, order string) bool {
		var run [3]byte
		n := 0
		for s != "" {
			i := 0
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
			if i == 0 || i == len(s) || n == len(run) {
				return false
			}
			run[n], n, s = s[i], n+1, s[i+1:]
		}
		return strings.Contains(order, string(run[:n]))
	}
	return units(date, "YMD") && units(clock, "HMS")
}

// isIPv4 is a dotted quad of decimals without leading zeros.
func isIPv4(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if !isDigits(p) || len(p) > 3 || len(p) > 1 && p[0] == '0' {
			return false
		}
		n := 0
		for i := 0; i < len(p); i++ {
			n = n*10 + int(p[i]-'0')
		}
		if n > 255 {
			return false
		}
	}
	return true
}

// isIPv6 is RFC 4291's text form, without a zone.
func isIPv6(s string) bool {
	if !strings.Contains(s, ":") || strings.Contains(s, "%") {
		return false
	}
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is6()
}

// isHostname is RFC 1123's host name; a label that is an A-label (RFC
// 5890, 5891) must also decode to a valid U-label whose encoding is the
// label again: xn--a decodes to U+0080, a control, and is refused.
func isHostname(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if len(label) < 1 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
		if len(label) >= 4 && label[2] == '-' && label[3] == '-' {
			if !strings.EqualFold(label[:2], "xn") {
				return false // reserved for an encoding
			}
			// RFC 5891 section 5.4: decode, check the U-label, and encode
			// it again, so that only the one encoding of a U-label passes.
			ace := strings.ToLower(label[4:])
			u, ok := decodePunycode(ace)
			if !ok || !isULabel(u) || encodePunycode(u) != ace {
				return false
			}
		}
	}
	return true
}

// decodePunycode decodes RFC 3492's Punycode.
func decodePunycode(s string) ([]rune, bool) {
	const base, tmin, tmax = 36, 1, 26
	var out []rune
	if i := strings.LastIndexByte(s, '-'); i >= 0 {
		for _, c := range s[:i] {
			if c >= 0x80 {
				return nil, false
			}
			out = append(out, c)
		}
		s = s[i+1:]
	}
	n, bias, i := 128, 72, 0
	for p := 0; p < len(s); {
		old, w := i, 1
		for k := base; ; k += base {
			if p == len(s) {
				return nil, false
			}
			c := s[p]
			p++
			var digit int
			switch {
			case c >= 'a' && c <= 'z':
				digit = int(c - 'a')
			case c >= '0' && c <= '9':
				digit = int(c-'0') + 26
			default:
				return nil, false
			}
			i += digit * w
			if i < 0 || i > 0x10FFFF*64 {
				return nil, false
			}
			t := k - bias
			if t < tmin {
				t = tmin
			} else if t > tmax {
				t = tmax
			}
			if digit < t {
				break
			}
			w *= base - t
		}
		bias = punycodeAdapt(i-old, len(out)+1, old == 0)
		n += i / (len(out) + 1)
		i %= len(out) + 1
		if n > unicode.MaxRune {
			return nil, false
		}
		out = append(out[:i], append([]rune{rune(n)}, out[i:]...)...)
		i++
	}
	return out, true
}

// encodePunycode encodes u in RFC 3492's Punycode (section 6.3), to check
// that an A-label is the one encoding of what it decodes to.
func encodePunycode(u []rune) string {
	const base, tmin, tmax, skew, damp = 36, 1, 26, 38, 700
	var out []byte
	for _, r := range u {
		if r < 0x80 {
			out = append(out, byte(r))
		}
	}
	b := len(out)
	if b > 0 {
		out = append(out, '-')
	}
	digit := func(d int) byte {
		if d < 26 {
			return byte('a' + d)
		}
		return byte('0' + d - 26)
	}
	n, delta, bias := rune(128), 0, 72
	for h := b; h < len(u); {
		m := rune(unicode.MaxRune + 1)
		for _, r := range u {
			if r >= n && r < m {
				m = r
			}
		}
		delta += int(m-n) * (h + 1)
		n = m
		for _, r := range u {
			if r < n {
				delta++
			}
			if r != n {
				continue
			}
			q := delta
			for k := base; ; k += base {
				t := min(max(k-bias, tmin), tmax)
				if q < t {
					break
				}
				out = append(out, digit(t+(q-t)%(base-t)))
				q = (q - t) / (base - t)
			}
			out = append(out, digit(q))
			bias = punycodeAdapt(delta, h+1, h == b)
			delta = 0
			h++
		}
		delta++
		n++
	}
	return string(out)
}

// punycodeAdapt is RFC 3492's bias adaptation (section 6.1).
func punycodeAdapt(delta, points int, first bool) int {
	const base, tmin, tmax, skew, damp = 36, 1, 26, 38, 700
	if first {
		delta /= damp
	} else {
		delta /= 2
	}
	delta += delta / points
	k := 0
	for delta > ((base-tmin)*tmax)/2 {
		delta /= base - tmin
		k += base
	}
	return k + (base-tmin+1)*delta/(delta+skew)
}

// isULabel checks what RFC 5891 and 5892 say of a U-label that needs no
// table beyond Unicode's categories and properties: some code point not
// ASCII, each code point one RFC 5892 derives as PVALID or CONTEXT
// ([idnaAllowed]), no leading combining mark, no hyphens in the third and
// fourth positions, and the contextual rules of its Appendix A.
func isULabel(u []rune) bool {
	if len(u) == 0 || unicode.Is(unicode.M, u[0]) || len(u) >= 4 && u[2] == '-' && u[3] == '-' {
		return false
	}
	ascii := true
	for _, r := range u {
		ascii = ascii && r < utf8.RuneSelf
		if !idnaAllowed(r) {
			return false
		}
	}
	if ascii {
		return false // an A-label encodes a label that needs it (RFC 5890 section 2.3.2.1)
	}
	arabicIndic, extended := false, false
	for i, r := range u {
		switch r {
		case 0x0640, 0x07FA, 0x302E, 0x302F, 0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x303B:
			return false
		case 0x00B7: // MIDDLE DOT: between two l
			if i == 0 || i == len(u)-1 || u[i-1] != 'l' || u[i+1] != 'l' {
				return false
			}
		case 0x0375: // GREEK KERAIA: before Greek
			if i == len(u)-1 || !unicode.Is(unicode.Greek, u[i+1]) {
				return false
			}
		case 0x05F3, 0x05F4: // GERESH, GERSHAYIM: after Hebrew
			if i == 0 || !unicode.Is(unicode.Hebrew, u[i-1]) {
				return false
			}
		case 0x30FB: // KATAKANA MIDDLE DOT: beside Hiragana, Katakana or Han
			found := false
			for _, o := range u {
				if o != 0x30FB && (unicode.In(o, unicode.Hiragana, unicode.Katakana, unicode.Han)) {
					found = true
				}
			}
			if !found {
				return false
			}
		case 0x200D: // ZERO WIDTH JOINER: after a virama
			if i == 0 || !isVirama(u[i-1]) {
				return false
			}
		case 0x200C: // ZERO WIDTH NON-JOINER: after a virama, or between joining letters
			if i == 0 || !isVirama(u[i-1]) && !joinsAround(u, i) {
				return false
			}
		}
		if r >= 0x0660 && r <= 0x0669 {
			arabicIndic = true
		}
		if r >= 0x06F0 && r <= 0x06F9 {
			extended = true
		}
	}
	return !(arabicIndic && extended)
}

// idnaAllowed follows RFC 5892 section 3's derivation of a code point's
// property as far as Unicode's categories and properties carry it: the
// exceptions (F) first, then ASCII's letters, digits and hyphen (K), the
// joiners (H), the old Hangul jamo (I, refused), and the letters, digits
// and marks (A) that are not ignorable (C, D) or changed by case folding
// (B, taken as having a lower case of their own). Everything else, U+0080
// and the other controls, spaces, symbols and punctuation among it, is
// DISALLOWED. What B says of compatibility forms needs NFKC's tables, which
// std does not hold; those few are let through.
func idnaAllowed(r rune) bool {
	switch r {
	case 0x00DF, 0x03C2, 0x06FD, 0x06FE, 0x0F0B, 0x3007, // PVALID exceptions
		0x00B7, 0x0375, 0x05F3, 0x05F4, 0x30FB, // CONTEXTO exceptions, checked by isULabel
		0x200C, 0x200D: // CONTEXTJ, checked by isULabel
		return true
	case 0x0640, 0x07FA, 0x302E, 0x302F, 0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x303B: // DISALLOWED exceptions
		return false
	}
	switch {
	case r < utf8.RuneSelf:
		return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-'
	case r >= 0x1100 && r <= 0x11FF || r >= 0xA960 && r <= 0xA97F || r >= 0xD7B0 && r <= 0xD7FF: // old Hangul jamo
		return false
	case r >= 0x20D0 && r <= 0x20FF || r >= 0x1D100 && r <= 0x1D24F: // ignorable blocks
		return false
	case unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector, unicode.White_Space, unicode.Noncharacter_Code_Point):
		return false
	case unicode.ToLower(r) != r:
		return false
	}
	return unicode.In(r, unicode.Ll, unicode.Lu, unicode.Lo, unicode.Nd, unicode.Lm, unicode.Mn, unicode.Mc)
}

// joinsAround reports whether the ZERO WIDTH NON-JOINER at u[i] stands
// between joining letters, skipping marks: RFC 5892's rule asks for
// Joining_Type L or D before and R or D after, which this takes to be
// letters of the scripts that join (Arabic, Syriac, N'Ko, Mongolian,
// Mandaic, Manichaean, Psalter Pahlavi, Adlam, Hanifi Rohingya, Sogdian).
func joinsAround(u []rune, i int) bool {
	joins := func(r rune) bool {
		return unicode.IsLetter(r) && unicode.In(r, unicode.Arabic, unicode.Syriac, unicode.Nko, unicode.Mongolian,
			unicode.Mandaic, unicode.Manichaean, unicode.Psalter_Pahlavi, unicode.Adlam, unicode.Hanifi_Rohingya, unicode.Sogdian)
	}
	before, after := i-1, i+1
	for before >= 0 && unicode.Is(unicode.Mn, u[before]) {
		before--
	}
	for after < len(u) && unicode.Is(unicode.Mn, u[after]) {
		after++
	}
	return before >= 0 && after < len(u) && joins(u[before]) && joins(u[after])
}

// isVirama reports whether r has the canonical combining class Virama
// (9): the viramas of the Brahmic scripts, all named so in Unicode.
func isVirama(r rune) bool {
	switch r {
	case 0x094D, 0x09CD, 0x0A4D, 0x0ACD, 0x0B4D, 0x0BCD, 0x0C4D, 0x0CCD, 0x0D3B, 0x0D3C, 0x0D4D, 0x0DCA,
		0x0E3A, 0x0EBA, 0x0F84, 0x1039, 0x103A, 0x1714, 0x1715, 0x1734, 0x17D2, 0x1A60, 0x1B44, 0x1BAA, 0x1BAB,
		0x1BF2, 0x1BF3, 0x2D7F, 0xA806, 0xA82C, 0xA8C4, 0xA953, 0xA9C0, 0xAAF6, 0xABED:
		return true
	}
	return false
}

// isEmail is RFC 5321's Mailbox: a dot-string or quoted local part, and
// a host name or an address literal.
func isEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || len(s) > 254 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 {
		return false
	}
	if len(local) >= 2 && local[0] == '"' && local[len(local)-1] == '"' {
		for i := 1; i < len(local)-1; i++ {
			c := local[i]
			if c == '\\' {
				i++
				if i >= len(local)-1 || local[i] < 32 || local[i] > 126 {
					return false
				}
				continue
			}
			if c == '"' || c < 32 || c > 126 {
				return false
			}
		}
	} else {
		if local[0] == '.' || local[len(local)-1] == '.' || strings.Contains(local, "..") {
			return false
		}
		for i := 0; i < len(local); i++ {
			c := local[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(".!#$%&'*+-/=?^_`{|}~", c) >= 0) {
				return false
			}
		}
	}
	if strings.HasPrefix(domain, "[") && strings.HasSuffix(domain, "]") {
		lit := domain[1 : len(domain)-1]
		if v6, ok := strings.CutPrefix(lit, "IPv6:"); ok {
			return isIPv6(v6)
		}
		return isIPv4(lit)
	}
	return isHostname(domain)
}

// isUUID is RFC 4122's string form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if !jsonvalue.IsHex(c) {
			return false
		}
	}
	return true
}

// isJSONPointer is RFC 6901's JSON Pointer.
func isJSONPointer(s string) bool {
	if s == "" {
		return true
	}
	if s[0] != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 == len(s) || s[i+1] != '0' && s[i+1] != '1') {
			return false
		}
	}
	return utf8.ValidString(s)
}

// isRelativeJSONPointer is draft-handrews-relative-json-pointer-01's.
func isRelativeJSONPointer(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i > 1 && s[0] == '0' {
		return false
	}
	return s[i:] == "#" || isJSONPointer(s[i:])
}

// isURI checks RFC 3986's URI (abs) or URI-reference, or RFC 3987's IRI
// forms (iri), by their grammar.
func isURI(s string, iri, abs bool) bool {
	if !utf8.ValidString(s) {
		return false
	}
	rest := s
	if i := strings.IndexAny(s, ":/?#"); i > 0 && s[i] == ':' {
		scheme := s[:i]
		if !isAlpha(scheme[0]) {
			return false
		}
		for j := 1; j < len(scheme); j++ {
			c := scheme[j]
			if !isAlpha(c) && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.' {
				return false
			}
		}
		rest = s[i+1:]
	} else if abs {
		return false
	} else if i == 0 && s[0] == ':' {
		return false
	} else {
		// A relative path's first segment holds no colon.
		first := s
		if j := strings.IndexAny(s, "/?#"); j >= 0 {
			first = s[:j]
		}
		if strings.Contains(first, ":") {
			return false
		}
	}
	rest, frag, hasFrag := strings.Cut(rest, "#")
	if hasFrag && !uriChars(frag, iri, "/?:@", false) {
		return false
	}
	rest, query, hasQuery := strings.Cut(rest, "?")
	if hasQuery && !uriChars(query, iri, "/?:@", true) {
		return false
	}
	if auth, ok := strings.CutPrefix(rest, "//"); ok {
		path := ""
		if j := strings.IndexByte(auth, '/'); j >= 0 {
			auth, path = auth[:j], auth[j:]
		}
		if !isAuthority(auth, iri) {
			return false
		}
		rest = path
	}
	return uriChars(rest, iri, "/:@", false)
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// uriChars reports whether s holds only unreserved characters,
// percent-encodings, sub-delims and extra; and, for an IRI, ucschar (and
// iprivate in a query).
func uriChars(s string, iri bool, extra string, query bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !jsonvalue.IsHex(s[i+1]) || !jsonvalue.IsHex(s[i+2]) {
				return false
			}
			i += 3
			continue
		case c >= 0x80:
			r, n := utf8.DecodeRuneInString(s[i:])
			if !iri || !(isUCSChar(r) || query && isIPrivate(r)) {
				return false
			}
			i += n
			continue
		case isAlpha(c) || c >= '0' && c <= '9' || strings.IndexByte("-._~!$&'()*+,;=", c) >= 0 || strings.IndexByte(extra, c) >= 0:
		default:
			return false
		}
		i++
	}
	return true
}

func isUCSChar(r rune) bool {
	switch {
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xF900 && r <= 0xFDCF, r >= 0xFDF0 && r <= 0xFFEF:
		return true
	case r >= 0x10000 && r <= 0xEFFFD:
		return r&0xFFFF <= 0xFFFD
	}
	return false
}

func isIPrivate(r rune) bool {
	return r >= 0xE000 && r <= 0xF8FF || r >= 0xF0000 && r <= 0xFFFFD || r >= 0x100000 && r <= 0x10FFFD
}

// isAuthority is RFC 3986's authority: [userinfo "@"] host [":" port].
func isAuthority(a string, iri bool) bool {
	if at := strings.LastIndexByte(a, '@'); at >= 0 {
		if !uriChars(a[:at], iri, ":", false) || strings.Contains(a[:at], "@") {
			return false
		}
		a = a[at+1:]
	}
	host, port := a, ""
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return false
		}
		host, port = a[:end+1], a[end+1:]
		if port != "" {
			p, ok := strings.CutPrefix(port, ":")
			if !ok {
				return false
			}
			port = ":" + p
		}
		lit := host[1 : len(host)-1]
		if len(lit) > 0 && (lit[0] == 'v' || lit[0] == 'V') {
			// IPvFuture: "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
			ver, addr, ok := strings.Cut(lit[1:], ".")
			if !ok || ver == "" || addr == "" || strings.ContainsAny(addr, "%") || !uriChars(addr, false, ":", false) {
				return false
			}
			for i := 0; i < len(ver); i++ {
				if !jsonvalue.IsHex(ver[i]) {
					return false
				}
			}
		} else if !isIPv6(lit) {
			return false
		}
	} else if i := strings.LastIndexByte(a, ':'); i >= 0 {
		host, port = a[:i], a[i:]
	}
	if port != "" && !isDigits(port[1:]) && port != ":" {
		return false
	}
	if strings.HasPrefix(host, "[") {
		return true
	}
	return uriChars(host, iri, "", false)
}

// isURITemplate is RFC 6570's URI Template, level 4.
func isURITemplate(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return false
			}
			if !isTemplateExpression(s[i+1 : i+end]) {
				return false
			}
			i += end + 1
			continue
		case c == '}':
			return false
		case c == '%':
			if i+2 >= len(s) || !jsonvalue.IsHex(s[i+1]) || !jsonvalue.IsHex(s[i+2]) {
				return false
			}
			i += 3
			continue
		case c >= 0x80:
			r, n := utf8.DecodeRuneInString(s[i:])
			if !isUCSChar(r) && !isIPrivate(r) {
				return false
			}
			i += n
			continue
		case c <= ' ' || c == 0x7f || strings.IndexByte("\"<>\\^`|", c) >= 0:
			return false
		}
		i++
	}
	return true
}

func isTemplateExpression(e string) bool {
	if e != "" && strings.IndexByte("+#./;?&=,!@|", e[0]) >= 0 {
		if strings.IndexByte("=,!@|", e[0]) >= 0 {
			return false // reserved for future extensions
		}
		e = e[1:]
	}
	if e == "" {
		return false
	}
	for _, spec := range strings.Split(e, ",") {
		name := spec
		if n, ok := strings.CutSuffix(spec, "*"); ok {
			name = n
		} else if n, max, ok := strings.Cut(spec, ":"); ok {
			if max == "" || len(max) > 4 || max[0] == '0' || !isDigits(max) {
				return false
			}
			name = n
		}
		if name == "" || name[0] == '.' || name[len(name)-1] == '.' || strings.Contains(name, "..") {
			return false
		}
		for i := 0; i < len(name); i++ {
			c := name[i]
			switch {
			case isAlpha(c) || c >= '0' && c <= '9' || c == '_' || c == '.':
			case c == '%':
				if i+2 >= len(name) || !jsonvalue.IsHex(name[i+1]) || !jsonvalue.IsHex(name[i+2]) {
					return false
				}
				i += 2
			default:
				return false
			}
		}
	}
	return true
}
