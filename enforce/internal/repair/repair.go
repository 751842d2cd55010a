package repair

import (
	"slices"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/engine"
	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// Set is a set of repairs, bit i the i-th in the order they apply
// (enforce.Repairs), each named in names.go.
type Set uint8

// The repairs, in the order they apply.
const (
	Fence Set = 1 << iota
	Syntax
	Quote
	Prose
	Gather
	Coerce
	// Label: a choice's label read loosely; enforce's choice reading
	// applies it, never a Mender.
	Label
	// ToolText: tool calls read back from a reply's text; enforce's
	// ReadTextCalls applies it, never a Mender.
	ToolText

	// All is every repair.
	All = Fence | Syntax | Quote | Prose | Gather | Coerce | Label | ToolText
)

// A Contract is the schema an answer is mended for, as the repairs ask
// of it.
type Contract interface {
	// Strict is the verdict on text as written, without repairs: nil
	// when it passes.
	Strict(text string) error
	// Unparsed reports whether err, a verdict of Strict, is a failure
	// at json-parse.
	Unparsed(err error) bool
}

// A Mender applies the repairs of Set for Contract, whose audited
// schema is Plan's tree (nil: only the fence, syntax and prose repairs
// can tell what the schema admits, and they read it as admitting
// anything).
type Mender struct {
	Set      Set
	Plan     *engine.Plan
	Contract Contract
}

// StartsLikeJSON reports whether the first byte of answer that is not
// whitespace can begin a JSON value.
func StartsLikeJSON(answer string) bool {
	for i := 0; i < len(answer); i++ {
		switch c := answer[i]; {
		case jsonvalue.IsSpace(c):
		case c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n':
			return true
		default:
			return false
		}
	}
	return true
}

// Judge is the verdict on answer of a schema with m's repairs, judging
// answers of up to limit bytes: the text judged (answer, or what the
// repairs made of it), the repairs applied, and the strict verdict on
// that text; tooLong's for an answer past limit, of which nothing is
// read or mended. A mend past limit is not applied: it would be judged
// for its length, not for what the model wrote.
func (m Mender) Judge(answer string, limit int, tooLong func() error) (string, Set, error) {
	// An answer whose first byte can begin a JSON value is judged as
	// written first: most answers pass so, and are never mended. One
	// that cannot (a fence, prose) is mended first, and judged as
	// written only when no repair applies.
	var strict error
	judged := StartsLikeJSON(answer)
	if judged {
		if strict = m.Contract.Strict(answer); strict == nil {
			return answer, 0, nil
		}
	}
	if len(answer) > limit {
		return answer, 0, tooLong()
	}
	text, applied, err := m.Mend(answer, strict, judged)
	if len(text) > limit {
		applied = 0
	}
	if applied == 0 {
		if !judged {
			strict = m.Contract.Strict(answer)
		}
		return answer, 0, strict
	}
	return text, applied, err
}

// Mend applies m's repairs to an answer that fails as written (with
// strict its verdict, when judged), and returns the text they make, the
// repairs applied, and the strict verdict on that text.
func (m Mender) Mend(answer string, strict error, judged bool) (string, Set, error) {
	var applied Set
	text, err := answer, strict
	if m.Set&Fence != 0 {
		if inner, ok := Unfence(text); ok {
			text, err, judged = inner, m.Contract.Strict(inner), true
			applied |= Fence
		}
	}
	if !judged {
		err = m.Contract.Strict(text)
	}
	if m.Contract.Unparsed(err) && m.Set&(Syntax|Quote) != 0 {
		if fixed, ok := relax(text, m.Set&(Syntax|Quote)); ok {
			if ferr := m.Contract.Strict(fixed.json); !m.Contract.Unparsed(ferr) && m.stringsAdmitted(fixed) {
				text, err = fixed.json, ferr
				applied |= fixed.used
			}
		}
	}
	if m.Contract.Unparsed(err) && m.Set&(Prose|Gather) != 0 {
		// A fence that did not hold one value: the answer as written,
		// fences and text, tells which fence holds what (and that a value
		// quoted after the fence closed is no piece of it).
		asWritten := applied&Fence != 0 && m.Set&Prose != 0
		from := text
		if asWritten {
			from = answer
		}
		if value, used, ok := m.fromText(from); ok {
			if asWritten {
				applied &^= Fence
			}
			text, err = value, m.Contract.Strict(value)
			applied |= used
		}
	}
	if err != nil && !m.Contract.Unparsed(err) && m.Set&Coerce != 0 {
		if coerced, ok := m.coerce(text); ok {
			text, err = coerced, m.Contract.Strict(coerced)
			applied |= Coerce
		}
	}
	return text, applied, err
}

// rootKinds is what the schema's root admits, read generously (as the
// coerce repair reads it): every kind when that cannot be told.
func (m Mender) rootKinds() engine.Kinds {
	c := coercer{plan: m.Plan}
	if m.Plan != nil {
		if k, ok := c.kinds(m.Plan.Tree, 0); ok {
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

// Unfence returns what a markdown fence around text holds: text must
// begin, after whitespace, with a run of three or more backticks or
// tildes and an info string on the rest of that line. A closing run of
// the same character at the end (whitespace aside) is removed; an
// answer with none (as some models send) keeps what follows the opening
// line.
func Unfence(text string) (string, bool) {
	i := 0
	for i < len(text) && jsonvalue.IsSpace(text[i]) {
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
// array the gather repair makes of them, and the repairs used. Either acts
// only when the text has one reading: no start of a value that is no
// candidate (a broken or cut-off rival, a value nested in a broken one).
//
// The prose repair takes the one candidate there is, of a kind the root
// admits; of several, the one that is a fence's whole content, when every
// other is an array (one quoted in the explanation around it) and only
// the fenced one passes. No words after it may take it back. The gather
// repair takes every candidate, in order, when the root admits an array
// and no object, no bracket outside the candidates begins a value that is
// not whole (it would be dropped), the candidates all lie in fences or
// none do, no words set them side by side as alternatives, corrections,
// restatements or templates, and no item is a template or said twice.
func (m Mender) fromText(text string) (string, Set, bool) {
	root := m.rootKinds()
	admit := root
	gather := m.Set&Gather != 0 && root&engine.KindArray != 0 && root&engine.KindObject == 0
	if gather {
		admit |= engine.KindObject // an item
	}
	limit := maxCandidates
	if root&engine.KindArray == 0 {
		limit = 1 // two objects for an object root: ambiguous, whatever else the text holds
	}
	var buf [4]candidate // most texts hold one or two
	f, ok := candidates(buf[:0], text, m.Set&(Syntax|Quote), admit, limit)
	cands := f.cands
	if !ok || len(cands) == 0 || f.rival {
		return "", 0, false
	}
	var spans []span // the fences' contents, once there are rivals
	if m.Set&Prose != 0 {
		pick, ok := candidate{}, false
		switch {
		case len(cands) == 1:
			// An object for an array root is gather's item, not prose's.
			pick, ok = cands[0], cands[0].kind&root != 0 && m.stringsAdmitted(cands[0].v)
		default:
			spans = fenceContents(text)
			pick, ok = m.preferFenced(spans, cands, root)
		}
		if ok && !saysSecondReading(text[pick.end:], retract|doubt|opening) {
			return pick.v.json, pick.v.used | Prose, true
		}
	}
	if !gather || f.broken || len(cands) < 2 {
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
	if saysSecondReading(text[:cands[0].start], template) || saysSecondReading(text[cands[len(cands)-1].end:], retract|doubt|opening) {
		return "", 0, false // a form shown before the values, or the last taken back
	}
	for i, c := range cands[1:] {
		if saysSecondReading(text[cands[i].end:c.start], retract|alternative|restate|template|doubt|opening|between) {
			return "", 0, false // "or, instead", "Wait, that's wrong", "call 1 again", "for example"
		}
	}
	if !setOut(text, cands) {
		return "", 0, false // words between the values, and no numbers: perhaps alternatives
	}
	g, ok := m.gather(text, cands)
	if !ok || (g.used&Prose != 0 && m.Set&Prose == 0) || !m.stringsAdmitted(g) || templateOrRestated(g.json) {
		return "", 0, false
	}
	return g.json, g.used, true
}

// preferFenced returns, of several candidates, the one that is the whole
// content of a fence, of a kind of root, when it is the only one that is,
// every other is an array, and it alone passes.
func (m Mender) preferFenced(spans []span, cands []candidate, root engine.Kinds) (candidate, bool) {
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
	if pick < 0 || cands[pick].kind&root == 0 || !m.passes(cands[pick].v) {
		return candidate{}, false
	}
	for i, c := range cands {
		if i != pick && m.passes(c.v) {
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
// mends it when m has it.
func (m Mender) passes(v relaxed) bool {
	if !m.stringsAdmitted(v) {
		return false
	}
	if m.Contract.Strict(v.json) == nil {
		return true
	}
	if m.Set&Coerce == 0 {
		return false
	}
	coerced, ok := m.coerce(v.json)
	return ok && m.Contract.Strict(coerced) == nil
}

// gather writes the candidates as one array, in order: an object is an
// item; an array of objects (one tool call in each block) gives its items,
// unless the schema's first item may itself be an array. Arrays of
// anything else, or objects beside arrays, are not gathered: [1, 2] and
// [3, 4] may as well be two answers as two halves of one. Its used names
// prose when text holds more than the candidates and whitespace.
func (m Mender) gather(text string, cands []candidate) (relaxed, bool) {
	c := coercer{plan: m.Plan}
	ik, ok := c.kinds(c.item(m.Plan.Tree, 0), 0)
	if !ok {
		return relaxed{}, false
	}
	splice := ik&engine.KindArray == 0
	for _, c := range cands[1:] {
		if c.kind != cands[0].kind {
			return relaxed{}, false // objects beside arrays: an array quoted in the explanation, or two answers
		}
	}
	g := relaxed{used: Gather}
	var b strings.Builder
	b.WriteByte('[')
	at := 0
	for _, c := range cands {
		if strings.TrimSpace(text[at:c.start]) != "" {
			g.used |= Prose
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
		g.used |= Prose
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
		case depth == 1 && c != '{' && c != ']' && c != ',' && !jsonvalue.IsSpace(c):
			return false
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
	}
	return true
}

// found is what candidates found in a text.
type found struct {
	// cands are the complete values, in order.
	cands []candidate
	// broken says a bracket outside the candidates began no whole value;
	// rival, that a bracket that is no candidate's looks like the start
	// of a value (looksLikeValue), or is a whole value of a kind the root
	// does not admit that may hold or be a part of the answer (an array
	// of objects beside an object root's answer, an object beside an
	// array): a second reading.
	broken, rival bool
}

// candidates finds the complete JSON objects and arrays that text holds,
// appending them to cands, in order. A candidate begins at a bracket
// outside any other bracket of the text (so a value inside a broken one
// is not taken for the answer), and is of a kind of admit (what the
// schema's root admits, so "[1]" citing a source is no object's rival);
// the liberties of allow apply to it too. Past limit candidates, or when
// the search would read the text more than a few times over, it gives up.
func candidates(cands []candidate, text string, allow Set, admit engine.Kinds, limit int) (_ found, ok bool) {
	budget := 8*len(text) + 1<<16
	f := found{cands: cands}
	depth := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '{', '[':
			if depth > 0 {
				f.rival = f.rival || looksLikeValue(text, i) // a value nested in a broken one
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
				return found{}, false
			}
			if end < 0 {
				f.broken = true
				f.rival = f.rival || looksLikeValue(text, i)
				depth++
				continue
			}
			kind := engine.Kinds(engine.KindObject)
			if text[i] == '[' {
				kind = engine.KindArray
			}
			if admit&kind == 0 {
				// Whole, but it could never pass: "[1]" citing a source is
				// no object's rival, but [{…}] may hold one, and an object
				// beside an array may be one of its items.
				f.rival = f.rival || kind == engine.KindObject || (itemsAreObjects(v.json) && strings.Contains(v.json, "{"))
				i = end - 1
				continue
			}
			if len(f.cands) == limit {
				return found{}, false
			}
			f.cands = append(f.cands, candidate{start: i, end: end, v: v, kind: kind})
			i = end - 1
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return f, true
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
