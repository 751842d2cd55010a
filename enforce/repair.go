package enforce

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/enforcer-go/enforcer/enforce/internal/engine"
	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// Repairs is a set of exact mends of an answer's form
// ([Schema.WithRepairs]); combine them with |. They apply in the order
// declared, which String and the JSON (an array of names) follow. An
// answer that passes as written is never mended.
type Repairs uint8

const (
	// RepairFence: a markdown fence around the answer (backticks or
	// tildes), with any info string, closed or not, and nothing but
	// whitespace outside it.
	RepairFence Repairs = 1 << iota
	// RepairSyntax: trailing commas, // and /* */ comments, single-quoted
	// strings, unquoted member names, Python's True, False and None, and
	// a missing comma between an object's members on separate lines.
	RepairSyntax
	// RepairQuote: a member's unquoted string value (day: Monday)
	// where the schema admits a string there; never NaN, Infinity or
	// undefined, nor an array's bare items.
	RepairQuote
	// RepairProse: exactly one JSON object or array inside text before
	// and/or after it. Text that holds two such values is left alone (the
	// model was ambiguous), unless exactly one of them is the content of
	// a fence and only that one passes.
	RepairProse
	// RepairGather: where the root schema admits an array and no object,
	// several complete values — fenced blocks, or values in or between
	// text — gathered in their order into one array: an object is an
	// item, an array's items are items (unless the items may be arrays).
	RepairGather
	// RepairCoerce: where no subschema that may apply admits a string, a
	// string that spells a JSON number (an integer, where only integers
	// are admitted) becomes that number, and "true" or "false" that
	// boolean; where only an array is admitted, a single value becomes an
	// array of it. Nothing is rounded, clipped, guessed or invented.
	RepairCoerce
	// RepairLabel: a [Choice]'s or [MultiLabel]'s label written in
	// another case, with whitespace around it, or with a trailing full
	// stop, where exactly one label is so written (see enforce/choice.go).
	RepairLabel

	// AllRepairs is every repair.
	AllRepairs = RepairFence | RepairSyntax | RepairQuote | RepairProse | RepairGather | RepairCoerce | RepairLabel
)

// repairKinds names each repair (bit i is entry i) and says in our words
// what it did, for the corrective message: adding a repair adds a
// constant above and a line here.
var repairKinds = [...]struct{ name, words string }{
	{"fence", "removed a markdown fence"},
	{"syntax", "rewrote relaxed syntax as JSON"},
	{"quote", "quoted unquoted words where a string belongs"},
	{"prose", "took the JSON value out of the text around it"},
	{"gather", "gathered separate values into one array, in order"},
	{"coerce", "read strings as the numbers or booleans they spell, or a value as an array of it"},
	{"label", "read a label written in another case, with spaces around it or a full stop after it, as the one label it spells"},
}

// ParseRepairs reads a comma-separated list of repair names ("fence,prose";
// "all" for [AllRepairs]; "" for none).
func ParseRepairs(names string) (Repairs, error) {
	var rs Repairs
	for _, name := range strings.Split(names, ",") {
		switch name = strings.TrimSpace(name); name {
		case "":
		case "all":
			rs |= AllRepairs
		default:
			i := slices.IndexFunc(repairKinds[:], func(k struct{ name, words string }) bool { return k.name == name })
			if i < 0 {
				return 0, fmt.Errorf("enforce: unknown repair %q (want %s or all)", name, AllRepairs)
			}
			rs |= 1 << i
		}
	}
	return rs, nil
}

// String is the names of the set in the order they apply, joined by
// commas.
func (rs Repairs) String() string {
	var b strings.Builder
	for i, k := range repairKinds {
		if rs&(1<<i) != 0 {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			b.WriteString(k.name)
		}
	}
	return b.String()
}

// MarshalJSON writes the names as an array, in the order they apply.
func (rs Repairs) MarshalJSON() ([]byte, error) {
	names := []string{}
	if rs &= AllRepairs; rs != 0 {
		names = strings.Split(rs.String(), ",")
	}
	return json.Marshal(names)
}

// UnmarshalJSON reads an array of names.
func (rs *Repairs) UnmarshalJSON(b []byte) error {
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return err
	}
	set, err := ParseRepairs(strings.Join(names, ","))
	if err != nil {
		return err
	}
	*rs = set
	return nil
}

// WithRepairs returns a copy of s that judges an answer failing as
// written as the repairs rs mend it ([Schema.Repaired]). Without repairs
// (the default) both stages are strict. Bits outside [AllRepairs] are
// ignored.
func (s *Schema) WithRepairs(rs Repairs) *Schema {
	c := *s
	c.repairs = rs & AllRepairs
	c.typed = new(sync.Map)
	return &c
}

// Repairs returns the repairs s applies.
func (s *Schema) Repairs() Repairs { return s.repairs }

// Repaired returns the text s judges for answer and the repairs that made
// it: answer itself and none when it keeps the contract as written, when
// s has no repairs, or when none of them applies.
func (s *Schema) Repaired(answer string) (string, Repairs) {
	text, applied, _ := s.checkForm(answer)
	return text, applied
}

// checkForm is Check that also says what was judged: the text (answer, or
// what s's repairs made of it) and the repairs applied. A mended answer
// that still fails returns the mended text's failure, which names the
// repairs ([CheckError.Repaired]).
func (s *Schema) checkForm(answer string) (string, Repairs, error) {
	if s.repairs == 0 {
		return answer, 0, s.checkStrict(answer)
	}
	// An answer whose first byte can begin a JSON value is judged as
	// written first: most answers pass so, and are never mended. One
	// that cannot (a fence, prose) is mended first, and judged as
	// written only when no repair applies.
	var strict error
	judged := startsLikeJSON(answer)
	if judged {
		strict = s.checkStrict(answer)
		if strict == nil {
			return answer, 0, nil
		}
	}
	if len(answer) > s.maxAnswerBytes() {
		return answer, 0, tooLong(s.maxAnswerBytes()) // nothing of it is read; nothing is mended
	}
	text, applied, err := s.mend(answer, strict, judged)
	if len(text) > s.maxAnswerBytes() {
		applied = 0 // a mend past the bound would be judged for its length, not for what the model wrote
	}
	if applied == 0 {
		if !judged {
			strict = s.checkStrict(answer)
		}
		return answer, 0, strict
	}
	if ce, ok := err.(*CheckError); ok {
		ce.Repaired = applied
	}
	return text, applied, err
}

// startsLikeJSON reports whether the first byte of answer that is not
// whitespace can begin a JSON value.
func startsLikeJSON(answer string) bool {
	for i := 0; i < len(answer); i++ {
		switch c := answer[i]; {
		case isSpace(c):
		case c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n':
			return true
		default:
			return false
		}
	}
	return true
}

// mend applies s's repairs to an answer that fails as written (with
// strict, when judged), and returns the text they make, the repairs
// applied, and the strict verdict on that text.
func (s *Schema) mend(answer string, strict error, judged bool) (string, Repairs, error) {
	var applied Repairs
	text, err := answer, strict
	if s.repairs&RepairFence != 0 {
		if inner, ok := unfence(text); ok {
			text, err, judged = inner, s.checkStrict(inner), true
			applied |= RepairFence
		}
	}
	if !judged {
		err = s.checkStrict(text)
	}
	if unparsed(err) && s.repairs&(RepairSyntax|RepairQuote) != 0 {
		if fixed, ok := relax(text, s.repairs&(RepairSyntax|RepairQuote)); ok {
			if ferr := s.checkStrict(fixed.json); !unparsed(ferr) && s.stringsAdmitted(fixed) {
				text, err = fixed.json, ferr
				applied |= fixed.used
			}
		}
	}
	if unparsed(err) && s.repairs&(RepairProse|RepairGather) != 0 {
		// A fence that did not hold one value: the answer as written,
		// fences and text, tells which fence holds what (and that a value
		// quoted after the fence closed is no piece of it).
		asWritten := applied&RepairFence != 0 && s.repairs&RepairProse != 0
		from := text
		if asWritten {
			from = answer
		}
		if value, used, ok := s.fromText(from); ok {
			if asWritten {
				applied &^= RepairFence
			}
			text, err = value, s.checkStrict(value)
			applied |= used
		}
	}
	if err != nil && !unparsed(err) && s.repairs&RepairCoerce != 0 {
		if coerced, ok := s.coerce(text); ok {
			text, err = coerced, s.checkStrict(coerced)
			applied |= RepairCoerce
		}
	}
	return text, applied, err
}

// unparsed reports whether err is a json-parse failure.
func unparsed(err error) bool {
	ce, ok := err.(*CheckError)
	return ok && ce.Stage == StageJSONParse
}

// rootKinds is what the schema's root admits, read generously (as the
// coerce repair reads it): every kind when that cannot be told.
func (s *Schema) rootKinds() engine.Kinds {
	c := coercer{s: s}
	if s.plan != nil {
		if k, ok := c.kinds(s.plan.Tree, 0); ok {
			return k
		}
	}
	return engine.KindObject | engine.KindArray
}

// validJSON reports whether text is exactly one JSON value.
func validJSON(text string) bool {
	_, err := jsonvalue.Parse(text)
	return err == nil
}

// unfence returns what a markdown fence around text holds: text must
// begin, after whitespace, with a run of three or more backticks or
// tildes and an info string on the rest of that line. A closing run of
// the same character at the end (whitespace aside) is removed; an
// answer with none (as some models send) keeps what follows the opening
// line.
func unfence(text string) (string, bool) {
	i := 0
	for i < len(text) && isSpace(text[i]) {
		i++
	}
	if i == len(text) || (text[i] != '`' && text[i] != '~') {
		return "", false
	}
	fc := text[i]
	n := 0
	for i+n < len(text) && text[i+n] == fc {
		n++
	}
	if n < 3 {
		return "", false
	}
	nl := strings.IndexByte(text[i+n:], '\n')
	if nl < 0 {
		return "", false
	}
	if info := text[i+n : i+n+nl]; fc == '`' && strings.IndexByte(info, '`') >= 0 {
		return "", false // not a fence: CommonMark forbids a backtick there
	}
	inner := text[i+n+nl+1:]
	trimmed := strings.TrimRight(inner, " \t\r\n")
	j := len(trimmed)
	for j > 0 && trimmed[j-1] == fc {
		j--
	}
	if len(trimmed)-j >= 3 {
		inner = trimmed[:j]
	}
	return inner, true
}

// maxCandidates bounds the values fromText weighs in one text; past it,
// the text is not mended.
const maxCandidates = 64

// A candidate is a complete value among other text: text[start:end],
// written as JSON in v, of kind object or array.
type candidate struct {
	start, end int
	v          relaxed
	kind       engine.Kinds
}

// fromText mends text that holds values among other text, or several
// values: it returns the value the prose repair takes out of it, or the
// array the gather repair makes of them, and the repairs used.
//
// The prose repair takes the one candidate there is; of several, the
// one that is a fence's whole content, when every other is an array
// (one quoted in the explanation around it) and only the fenced one
// passes. The gather repair takes every candidate, in order, when the
// root admits an array and no object, no bracket outside the candidates
// begins a value that is not whole (it would be dropped), and the
// candidates all lie in fences or none do.
func (s *Schema) fromText(text string) (string, Repairs, bool) {
	root := s.rootKinds()
	admit := root
	gather := s.repairs&RepairGather != 0 && root&engine.KindArray != 0 && root&engine.KindObject == 0
	if gather {
		admit |= engine.KindObject // an item
	}
	limit := maxCandidates
	if root&engine.KindArray == 0 {
		limit = 1 // two objects for an object root: ambiguous, whatever else the text holds
	}
	var buf [4]candidate // most texts hold one or two
	cands, broken, ok := candidates(buf[:0], text, s.repairs&(RepairSyntax|RepairQuote), admit, limit)
	if !ok || len(cands) == 0 {
		return "", 0, false
	}
	var spans []span // the fences' contents, once there are rivals
	if s.repairs&RepairProse != 0 {
		own := cands // the root's own kinds: all of them, unless gather admitted objects too
		if gather && slices.ContainsFunc(cands, func(c candidate) bool { return c.kind&root == 0 }) {
			own = slices.DeleteFunc(slices.Clone(cands), func(c candidate) bool { return c.kind&root == 0 })
		}
		if len(own) == 1 && s.stringsAdmitted(own[0].v) {
			return own[0].v.json, own[0].v.used | RepairProse, true
		}
		if len(own) > 1 {
			spans = fenceContents(text)
			if c, ok := s.preferFenced(spans, own); ok {
				return c.v.json, c.v.used | RepairProse, true
			}
		}
	}
	if !gather || broken || len(cands) < 2 {
		return "", 0, false
	}
	if spans == nil {
		spans = fenceContents(text)
	}
	fenced := 0
	for _, c := range cands {
		if inFence(spans, c) {
			fenced++
		}
	}
	if fenced > 0 && fenced < len(cands) {
		return "", 0, false // one in a fence, one not: an answer and what the text around it quotes, or two answers
	}
	g, ok := s.gather(text, cands)
	if !ok || (g.used&RepairProse != 0 && s.repairs&RepairProse == 0) || !s.stringsAdmitted(g) {
		return "", 0, false
	}
	return g.json, g.used, true
}

// preferFenced returns, of several candidates, the one that is the whole
// content of a fence, when it is the only one that is, every other is an
// array, and it alone passes.
func (s *Schema) preferFenced(spans []span, cands []candidate) (candidate, bool) {
	pick := -1
	for i, c := range cands {
		if isFenced(spans, c) {
			if pick >= 0 {
				return candidate{}, false
			}
			pick = i
		} else if c.kind != engine.KindArray {
			return candidate{}, false
		}
	}
	if pick < 0 || !s.passes(cands[pick].v) {
		return candidate{}, false
	}
	for i, c := range cands {
		if i != pick && s.passes(c.v) {
			return candidate{}, false
		}
	}
	return cands[pick], true
}

// isFenced reports whether c is the whole content of a fence of spans.
func isFenced(spans []span, c candidate) bool {
	f, ok := fenceOf(spans, c)
	return ok && f.start == c.start && f.end == c.end
}

// inFence reports whether c lies inside a fence of spans.
func inFence(spans []span, c candidate) bool {
	_, ok := fenceOf(spans, c)
	return ok
}

// fenceOf is the fence of spans (ascending, apart) whose content holds c.
func fenceOf(spans []span, c candidate) (span, bool) {
	i, _ := slices.BinarySearchFunc(spans, c.start, func(f span, at int) int {
		switch {
		case f.end <= at:
			return -1
		case f.start > at:
			return 1
		}
		return 0
	})
	if i < len(spans) && spans[i].start <= c.start && c.end <= spans[i].end {
		return spans[i], true
	}
	return span{}, false
}

// passes reports whether v passes as written, or as the coerce repair
// mends it when s has it.
func (s *Schema) passes(v relaxed) bool {
	if !s.stringsAdmitted(v) {
		return false
	}
	if s.checkStrict(v.json) == nil {
		return true
	}
	if s.repairs&RepairCoerce == 0 {
		return false
	}
	coerced, ok := s.coerce(v.json)
	return ok && s.checkStrict(coerced) == nil
}

// gather writes the candidates as one array, in order: an object is an
// item; an array of objects (one tool call in each block) gives its items,
// unless the schema's first item may itself be an array. Arrays of
// anything else, or objects beside arrays, are not gathered: [1, 2] and
// [3, 4] may as well be two answers as two halves of one. Its used names
// prose when text holds more than the candidates and whitespace.
func (s *Schema) gather(text string, cands []candidate) (relaxed, bool) {
	c := coercer{s: s}
	ik, ok := c.kinds(c.item(s.plan.Tree, 0), 0)
	if !ok {
		return relaxed{}, false
	}
	splice := ik&engine.KindArray == 0
	for _, c := range cands[1:] {
		if c.kind != cands[0].kind {
			return relaxed{}, false // objects beside arrays: an array quoted in the explanation, or two answers
		}
	}
	g := relaxed{used: RepairGather}
	var b strings.Builder
	b.WriteByte('[')
	at := 0
	for _, c := range cands {
		if strings.TrimSpace(text[at:c.start]) != "" {
			g.used |= RepairProse
		}
		at = c.end
		seg, from := c.v.json, 0
		if c.kind == engine.KindArray && !(splice && itemsAreObjects(seg)) {
			return relaxed{}, false // [1, 2] and [3, 4]: alternatives as likely as parts
		}
		if c.kind == engine.KindArray {
			inner := seg[1 : len(seg)-1]
			from = 1 + len(inner) - len(strings.TrimLeft(inner, " \t\r\n"))
			seg = strings.TrimSpace(inner)
			if seg == "" {
				continue
			}
		}
		if b.Len() > 1 {
			b.WriteString(", ")
		}
		for _, o := range c.v.bare {
			g.bare = append(g.bare, b.Len()+o-from)
		}
		b.WriteString(seg)
		g.used |= c.v.used
	}
	if strings.TrimSpace(text[at:]) != "" {
		g.used |= RepairProse
	}
	b.WriteByte(']')
	g.json = b.String()
	return g, true
}

// itemsAreObjects reports whether every item of the JSON array a is an
// object.
func itemsAreObjects(a string) bool {
	depth, inStr, esc := 0, false, false
	for i := 0; i < len(a); i++ {
		c := a[i]
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case depth == 1 && c != '{' && c != ']' && c != ',' && !isSpace(c):
			return false
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
	}
	return true
}

// candidates appends to cands the complete JSON objects and arrays that
// text holds, in order. A candidate begins at a bracket outside any other
// bracket of the text (so a value inside a broken one is not taken for
// the answer), and is of a kind of admit (what the schema's root admits,
// so "[1]" citing a source is no object's rival); the liberties of allow
// apply to it too. broken says a bracket outside the candidates began no
// whole value. Past limit candidates, or when the search would read the
// text more than a few times over, it gives up.
func candidates(cands []candidate, text string, allow Repairs, admit engine.Kinds, limit int) (_ []candidate, broken bool, ok bool) {
	budget := 8*len(text) + 1<<16
	depth := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '{', '[':
			if depth > 0 {
				depth++
				continue
			}
			end, strict, read := valueAt(text, i)
			v := relaxed{json: strict}
			if end < 0 && allow != 0 {
				var more int
				end, v, more = relaxAt(text, i, allow)
				read += more
			}
			if budget -= read; budget < 0 {
				return nil, false, false
			}
			if end < 0 {
				broken = true
				depth++
				continue
			}
			kind := engine.Kinds(engine.KindObject)
			if text[i] == '[' {
				kind = engine.KindArray
			}
			if admit&kind == 0 {
				i = end - 1 // whole, but it could never pass
				continue
			}
			if len(cands) == limit {
				return nil, false, false
			}
			cands = append(cands, candidate{start: i, end: end, v: v, kind: kind})
			i = end - 1
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return cands, broken, true
}

// A span is where a fence's content begins, past leading whitespace, and
// ends, before trailing whitespace.
type span struct{ start, end int }

// fenceContents returns the contents of text's markdown fences, in order.
// A fence opens on a line that begins (after a list marker, if any) with
// three or more backticks or tildes and closes on the next line that begins with at least as many
// of the same character and holds nothing else; one never closed holds
// the rest of the text. Past maxCandidates fences it gives none: no
// candidate is then taken for a fence's.
func fenceContents(text string) []span {
	var spans []span
	open, run, from := byte(0), 0, 0
	for line := 0; line < len(text); {
		next := strings.IndexByte(text[line:], '\n')
		if next < 0 {
			next = len(text)
		} else {
			next += line + 1
		}
		l := strings.TrimLeft(text[line:next], " ")
		if open == 0 {
			l = strings.TrimLeft(trimListMarker(l), " ")
		}
		c, n := byte(0), 0
		if len(l) > 0 && (l[0] == '`' || l[0] == '~') {
			c = l[0]
			for n < len(l) && l[n] == c {
				n++
			}
		}
		switch {
		case open == 0 && n >= 3:
			open, run, from = c, n, next
		case open != 0 && c == open && n >= run && strings.TrimSpace(l[n:]) == "":
			spans = addSpan(spans, text, from, line)
			open = 0
		}
		if len(spans) > maxCandidates {
			return nil
		}
		line = next
	}
	if open != 0 {
		spans = addSpan(spans, text, from, len(text))
	}
	return spans
}

// trimListMarker returns l without the list marker it begins with ("1. ",
// "2) ", "- ", "* ", "+ "), where a fence may open as a list item's
// content.
func trimListMarker(l string) string {
	i := 0
	for i < len(l) && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	switch {
	case i > 0 && i < len(l) && (l[i] == '.' || l[i] == ')'):
		i++
	case i == 0 && len(l) > 0 && (l[0] == '-' || l[0] == '*' || l[0] == '+'):
		i++
	default:
		return l
	}
	if i < len(l) && l[i] == ' ' {
		return l[i:]
	}
	return l
}

// addSpan appends text[from:to], trimmed of whitespace, unless blank.
func addSpan(spans []span, text string, from, to int) []span {
	inner := text[from:to]
	lead := len(inner) - len(strings.TrimLeft(inner, " \t\r\n"))
	if trimmed := strings.TrimSpace(inner); trimmed != "" {
		spans = append(spans, span{from + lead, from + lead + len(trimmed)})
	}
	return spans
}

// valueAt parses one strict JSON value at text[i:] and returns where it
// ends (-1 when it is not one) and its text, and how many bytes it read.
func valueAt(text string, i int) (end int, value string, read int) {
	p := jsonvalue.Parser{S: text, I: i}
	p.Value()
	if p.Err != nil {
		return -1, "", p.Err.Off - i + 1
	}
	return p.I, text[i:p.I], p.I - i
}
