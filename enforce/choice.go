package enforce

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// Label is one answer a choice allows.
type Label struct {
	// Name is the label as the answer writes it: not empty, valid UTF-8
	// without U+FFFD or control characters, no whitespace around it,
	// not beginning with a quote, [ or {.
	Name string
	// Description says what the label means, for the model; it may be
	// empty.
	Description string
}

// Choice returns the contract of an answer that is one of labels. The
// answer may take any of these forms:
//
//   - the label as it is written ("positive"): what the prompt asks for;
//   - a JSON string of it ("\"positive\"");
//   - the object form {"label": "positive"}, which tool and native modes
//     send ([Schema.JSON] is its schema).
//
// An answer that begins (after whitespace) with a quote, [ or { is read
// as JSON, and fails json-parse when it is not one JSON value; an object
// is judged as the object form, with issues at its pointers ("/label");
// anything else is the label itself, its issues at the root: a number or
// a literal as that JSON value, other text as a string. With
// [RepairLabel] ([Schema.WithRepairs]) a label written in another case,
// with whitespace around it or a trailing full stop ("Positive.\n") is
// read as the one label it spells, when exactly one; anything else
// ("pos", "Positive sentiment") fails at schema-validate with the
// labels named. As it streams ([Schema.Stream]), an answer in none of
// the JSON forms fails at the first byte that no label, no JSON number
// or literal, and with the repair no near-miss can begin with. Labels
// must be distinct, also in case; a *[SchemaError] says which is not.
func Choice(labels ...Label) (*Schema, error) { return newChoice(false, labels) }

// MultiLabel returns the contract of an answer that is a set of labels:
// one or more, each at most once. It reads as [Choice] does, with a
// JSON array of labels ("[\"billing\", \"urgent\"]") for the label and
// {"labels": [...]} for the object form; a single label, bare or a JSON
// string, is a set of one. Issues are at the pointers of the array
// ("/1"), or of the object form ("/labels/1").
func MultiLabel(labels ...Label) (*Schema, error) { return newChoice(true, labels) }

// choice is the reading of a Choice or a MultiLabel.
type choice struct {
	multi  bool
	labels []Label
	names  map[string]struct{}
	// own is the schema of the label itself (or the array of labels),
	// for every form but the object form, which the outer schema judges.
	own *Schema
	// bare is the verdict on any answer that reads as a string that is
	// no label: the early verdict of an answer doomed as it streams.
	bare  *CheckError
	w     *kindWords
	instr string
}

func newChoice(multi bool, labels []Label) (*Schema, error) {
	what := "Choice"
	if multi {
		what = "MultiLabel"
	}
	if len(labels) == 0 {
		return nil, &SchemaError{Reason: what + " needs at least one label"}
	}
	c := &choice{multi: multi, labels: append([]Label(nil), labels...), names: make(map[string]struct{}, len(labels))}
	folded := make(map[string]string, len(labels))
	names := make([]string, len(labels))
	for i, l := range labels {
		if err := checkLabel(l.Name); err != nil {
			return nil, &SchemaError{Reason: fmt.Sprintf("%s: label %d (%s) %s", what, i+1, strconv.Quote(jsonvalue.Clip(l.Name, maxIssueQuote)), err)}
		}
		key := foldKey(l.Name)
		if prev, dup := folded[key]; dup {
			return nil, &SchemaError{Reason: fmt.Sprintf("%s: labels %s and %s differ only in case, if at all: the answer could not tell them apart", what, strconv.Quote(jsonvalue.Clip(prev, maxIssueQuote)), strconv.Quote(jsonvalue.Clip(l.Name, maxIssueQuote)))}
		}
		folded[key] = l.Name
		c.names[l.Name] = struct{}{}
		names[i] = l.Name
	}
	enum, _ := json.Marshal(names)
	item := `{"type":"string","enum":` + string(enum) + `}`
	member, valueJSON := "label", item
	prop := `{"type":"string","enum":` + string(enum) + `,"description":` + quoteJSON(c.describe()) + `}`
	if multi {
		member = "labels"
		valueJSON = `{"type":"array","items":` + item + `,"uniqueItems":true,"minItems":1}`
		prop = `{"type":"array","items":` + item + `,"uniqueItems":true,"minItems":1,"description":` + quoteJSON(c.describe()) + `}`
	}
	wrap := `{"type":"object","properties":{"` + member + `":` + prop + `},"required":["` + member + `"],"additionalProperties":false}`
	s, err := CompileSchema([]byte(wrap))
	if err != nil {
		return nil, err
	}
	if c.own, err = CompileSchema([]byte(valueJSON)); err != nil {
		return nil, err
	}
	c.own.maxAnswer = math.MaxInt // the answer's size is the outer schema's to bound
	c.w = c.newWords()
	c.instr = c.newInstructions()
	err = c.own.checkStrict(c.valueOf(quoteJSON("\x00"))) // no label holds a control character
	c.bare, _ = err.(*CheckError)
	if c.bare == nil {
		return nil, &SchemaError{Reason: what + ": a string that is no label passed its schema"}
	}
	c.bare.words = c.w
	s.reading = c
	return s, nil
}

// checkLabel says what is wrong with a label's name, or nil.
func checkLabel(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("is empty")
	case !utf8.ValidString(name):
		return fmt.Errorf("is not valid UTF-8")
	case name[0] == '"' || name[0] == '[' || name[0] == '{':
		return fmt.Errorf("begins with %q, which begins a JSON answer", name[0])
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("has whitespace around it")
	}
	for _, r := range name {
		if r == utf8.RuneError || unicode.IsControl(r) {
			return fmt.Errorf("holds %U, which an answer cannot be told apart by", r)
		}
	}
	return nil
}

// foldKey is the same for two names exactly when strings.EqualFold
// holds for them.
func foldKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

// foldRune is the least rune of r's case-folding orbit.
func foldRune(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// valueOf is the value JSON for v, the JSON of one label's value (a
// string, number, literal): for a MultiLabel, a set of it.
func (c *choice) valueOf(v string) string {
	if c.multi {
		return "[" + v + "]"
	}
	return v
}

func (c *choice) kind() Kind {
	if c.multi {
		return KindMultiLabel
	}
	return KindChoice
}

func (c *choice) member() string {
	if c.multi {
		return "labels"
	}
	return "label"
}

// Forms of a choice's answer, as read.
const (
	formValue  = iota // the label (or labels) itself: judged by c.value
	formObject        // the object form: judged by the outer schema
)

// read reads answer, within its size bound: the JSON judged and its
// form, or the json-parse failure of an answer that begins as JSON and
// is not.
func (c *choice) read(answer string) (string, int, *CheckError) {
	if _, ok := c.names[answer]; ok {
		return c.valueOf(quoteJSON(answer)), formValue, nil
	}
	i := 0
	for i < len(answer) && jsonSpace(answer[i]) {
		i++
	}
	if i < len(answer) && (answer[i] == '"' || answer[i] == '[' || answer[i] == '{') {
		doc, err := jsonvalue.Parse(answer)
		if err != nil {
			return "", 0, parseFailure(answer, err)
		}
		switch doc.(type) {
		case map[string]any:
			return answer, formObject, nil
		case []any:
			return answer, formValue, nil // for a Choice, an issue of type
		}
		return c.valueOf(answer), formValue, nil
	}
	if _, err := jsonvalue.Parse(answer); err == nil {
		return c.valueOf(answer), formValue, nil // a number or a literal: an issue of type
	}
	return c.valueOf(quoteJSON(answer)), formValue, nil
}

func (c *choice) judge(s *Schema, answer string) (string, Repairs, error) {
	if err := s.checkSize(answer); err != nil {
		err.words = c.w
		return answer, 0, err
	}
	js, form, perr := c.read(answer)
	if perr != nil {
		perr.words = c.w
		return answer, 0, perr
	}
	err := c.check(s, js, form)
	if err == nil || s.repairs&RepairLabel == 0 {
		return answer, 0, err
	}
	mended, ok := c.mend(js, form)
	if !ok {
		return answer, 0, err
	}
	text := mended
	if form == formValue && !c.multi {
		_ = json.Unmarshal([]byte(mended), &text) // the label as the prompt asks for it
	}
	if err := c.check(s, mended, form); err != nil {
		err.(*CheckError).Repaired = RepairLabel
		return text, RepairLabel, err
	}
	return text, RepairLabel, nil
}

// check judges js, of form, strictly.
func (c *choice) check(s *Schema, js string, form int) error {
	var err error
	if form == formObject {
		err = s.checkStrict(js)
	} else {
		err = c.own.checkStrict(js)
	}
	if ce, ok := err.(*CheckError); ok {
		ce.words = c.w
	}
	return err
}

// mend returns js, of form, with each label that is a near-miss of
// exactly one label written as that label; false when none is.
func (c *choice) mend(js string, form int) (string, bool) {
	var doc any
	if json.Unmarshal([]byte(js), &doc) != nil {
		return "", false
	}
	changed := false
	fix := func(v any) any {
		if s, ok := v.(string); ok {
			if l, ok := c.nearMiss(s); ok && l != s {
				changed = true
				return l
			}
		}
		return v
	}
	fixAll := func(v any) any {
		if !c.multi {
			return fix(v)
		}
		items, ok := v.([]any)
		if !ok {
			return v
		}
		for i := range items {
			items[i] = fix(items[i])
		}
		return items
	}
	if form == formObject {
		obj := doc.(map[string]any)
		if v, ok := obj[c.member()]; ok {
			obj[c.member()] = fixAll(v)
		}
	} else {
		doc = fixAll(doc)
	}
	if !changed {
		return "", false
	}
	b, err := json.Marshal(doc)
	return string(b), err == nil
}

// nearMiss returns the one label s spells in another case, with
// whitespace around it or a trailing full stop.
func (c *choice) nearMiss(s string) (string, bool) {
	t := strings.TrimSpace(s)
	stop, hasStop := strings.CutSuffix(t, ".")
	found, n := "", 0
	for _, l := range c.labels {
		if strings.EqualFold(t, l.Name) || hasStop && strings.EqualFold(stop, l.Name) {
			found, n = l.Name, n+1
		}
	}
	return found, n == 1
}

func (c *choice) value(s *Schema, answer string) (string, bool) {
	js, form, perr := c.read(answer)
	if perr != nil {
		return "", false
	}
	if form == formObject {
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(js), &obj) != nil {
			return "", false
		}
		v, ok := obj[c.member()]
		if !ok {
			return "", false
		}
		js = string(v)
	}
	if s.repairs&RepairLabel != 0 {
		if mended, ok := c.mend(js, formValue); ok {
			js = mended
		}
	}
	return js, true
}

func (c *choice) words() *kindWords { return c.w }

func (c *choice) instructions() string { return c.instr }

// describe is the labels and their descriptions in one line, for the
// object form's schema.
func (c *choice) describe() string {
	var b strings.Builder
	if c.multi {
		b.WriteString("The labels that apply, each at most once, of: ")
	} else {
		b.WriteString("One of the labels: ")
	}
	for i, l := range c.labels {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(strconv.Quote(l.Name))
		if l.Description != "" {
			b.WriteString(" (" + l.Description + ")")
		}
	}
	return b.String()
}

func (c *choice) newInstructions() string {
	var b strings.Builder
	if c.multi {
		b.WriteString("Your final answer is the labels below that apply: one or more, each at most once. " +
			`Reply with only a JSON array of them, each exactly as written here, such as ["` + c.labels[0].Name + `"]: no other words. ` +
			`(Answering in JSON as an object, write {"labels": [...]}.)`)
	} else {
		b.WriteString("Your final answer is exactly one of the labels below. " +
			"Reply with only the label, exactly as written here: no other words, no quotes, no punctuation. " +
			`(Answering in JSON, write {"label": "<the label>"}.)`)
	}
	b.WriteString("\n\nLabels:")
	for _, l := range c.labels {
		b.WriteString("\n- " + strconv.Quote(l.Name))
		if l.Description != "" {
			b.WriteString(": " + l.Description)
		}
	}
	return b.String()
}

// maxLabelList caps the labels a corrective message lists.
const maxLabelList = 2048

func (c *choice) newWords() *kindWords {
	w := &kindWords{
		parse:      "Stage: json-parse — the answer begins as JSON (a quote, [ or {) but is not one JSON value.\n",
		validate:   "Stage: schema-validate — the answer is not one of the labels.\n",
		validators: "Stage: schema-validate — the answer is one of the labels, but checks of it failed.\n",
		reply:      "Reply with only one of the labels, exactly as written, nothing else.",
	}
	if c.multi {
		w.validate = "Stage: schema-validate — the answer is not a set of the labels.\n"
		w.validators = "Stage: schema-validate — the answer is a set of the labels, but checks of it failed.\n"
		w.reply = "Reply with only a JSON array of the labels that apply, each exactly as written, nothing else."
	}
	var b strings.Builder
	b.WriteString("The labels are: ")
	for i, l := range c.labels {
		q := strconv.Quote(l.Name)
		if i > 0 && b.Len()+len(q) > maxLabelList {
			fmt.Fprintf(&b, ", and %d more (see the instructions)", len(c.labels)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(q)
	}
	b.WriteString(".\n")
	w.after = b.String()
	return w
}

func (c *choice) stream(s *Schema) kindStream {
	cs := &choiceStream{s: s, c: c, limit: s.maxAnswerBytes(), fold: s.repairs&RepairLabel != 0}
	cs.exact = make([]int, len(c.labels))
	for i := range cs.exact {
		cs.exact[i] = i
	}
	cs.folds = append([]int(nil), cs.exact...)
	return cs
}

// choiceStream judges a choice's answer as it arrives. An answer that
// begins as JSON is judged at its end (or its size bound); any other is
// doomed at the first byte after which it can be no label (exactly),
// no JSON number or literal (an issue of type, not of the labels), and,
// with the label repair, no near-miss of a label: every completion of
// it then reads as a string that is no label, whose verdict is c.bare.
type choiceStream struct {
	s     *Schema
	c     *choice
	limit int
	buf   strings.Builder
	read  int // bytes judged
	// json: the answer began as JSON; lead: it began, after JSON
	// whitespace, at byte lead; started: a byte that is not JSON
	// whitespace has come.
	json, started bool
	lead          int
	exact         []int // labels whose bytes begin as the answer's do
	scalar        scalarPrefix
	// fold: a near-miss may still come; folds are the labels it may be
	// of, core the answer's runes from its first to its last that is not
	// whitespace, pending the whitespace after them.
	fold          bool
	folds         []int
	core, pending []rune
	runes         int // bytes decoded into runes for the fold
	// verdict is the early verdict, once given.
	verdict error
	closed  bool
}

func (cs *choiceStream) write(p string) (int, error) {
	if cs.closed {
		return 0, errStreamClosed
	}
	if cs.verdict != nil {
		return 0, cs.verdict
	}
	start := cs.buf.Len()
	if cs.buf.Cap() == 0 {
		cs.buf.Grow(min(max(2048, 2*len(p)), cs.limit+1)) // as an Incremental starts
	}
	cs.buf.WriteString(p[:min(len(p), cs.limit+1-start)])
	s := cs.buf.String()
	for i := start; i < len(s); i++ {
		if i == cs.limit {
			cs.verdict = tooLong(cs.limit)
			cs.verdict.(*CheckError).words = cs.c.w
			return i + 1 - start, cs.verdict
		}
		if cs.json {
			continue
		}
		if !cs.step(s, i) {
			v := *cs.c.bare
			v.Issues = append([]Issue(nil), v.Issues...)
			cs.verdict = &v
			return i + 1 - start, cs.verdict
		}
	}
	return len(p), nil
}

// step reads byte i of s and reports whether a completion of s[:i+1]
// may still pass.
func (cs *choiceStream) step(s string, i int) bool {
	b := s[i]
	if !cs.started {
		if jsonSpace(b) {
			cs.lead = i + 1
		} else {
			cs.started = true
			if b == '"' || b == '[' || b == '{' {
				cs.json = true
				return true
			}
		}
	}
	alive := false
	// A label, exactly: the answer's bytes begin it.
	n := 0
	for _, l := range cs.exact {
		if name := cs.c.labels[l].Name; i < len(name) && name[i] == b {
			cs.exact[n] = l
			n++
		}
	}
	cs.exact = cs.exact[:n]
	alive = n > 0
	// A JSON number or literal, after JSON whitespace.
	if cs.started && cs.scalar.step(b) {
		alive = true
	}
	if !cs.started {
		return true // only JSON whitespace so far: a JSON form may follow
	}
	if cs.fold && cs.foldStep(s, i) {
		alive = true
	}
	return alive
}

// foldStep decodes the runes byte i of s completes and reports whether a
// near-miss may still come: the runes after leading whitespace, up to
// the last that is not whitespace (whitespace after it may be trailing),
// begin some label, or the label and a full stop, in any case.
func (cs *choiceStream) foldStep(s string, i int) bool {
	for cs.runes <= i && utf8.FullRuneInString(s[cs.runes:i+1]) {
		r, size := utf8.DecodeRuneInString(s[cs.runes:])
		cs.runes += size
		if unicode.IsSpace(r) {
			if len(cs.core) > 0 {
				cs.pending = append(cs.pending, r)
			}
			continue
		}
		cs.core = append(append(cs.core, cs.pending...), r)
		cs.pending = cs.pending[:0]
		n := 0
		for _, l := range cs.folds {
			if foldPrefix(cs.core, cs.c.labels[l].Name+".") {
				cs.folds[n] = l
				n++
			}
		}
		if cs.folds = cs.folds[:n]; n == 0 {
			cs.fold = false
			break
		}
	}
	return cs.fold
}

// foldPrefix reports whether core, rune by rune, is name's beginning in
// any case.
func foldPrefix(core []rune, name string) bool {
	i := 0
	for _, r := range name {
		if i == len(core) {
			return true
		}
		if foldRune(core[i]) != foldRune(r) {
			return false
		}
		i++
	}
	return i == len(core)
}

func (cs *choiceStream) close() error {
	if !cs.closed {
		cs.closed = true
		if cs.verdict == nil {
			cs.verdict = cs.s.Check(cs.buf.String())
		}
	}
	return cs.verdict
}

// scalarPrefix follows the bytes of an answer after its leading JSON
// whitespace, and says whether they may still begin a JSON number or
// literal (with JSON whitespace after it).
type scalarPrefix struct {
	state uint8
	lit   string // the literal being matched
	at    int    // bytes of it matched
}

const (
	scStart uint8 = iota
	scMinus
	scZero
	scInt
	scDot
	scFrac
	scE
	scESign
	scExp
	scLit
	scAfter
	scDead
)

// step reads b and reports whether a number or literal may still come.
func (p *scalarPrefix) step(b byte) bool {
	digit := b >= '0' && b <= '9'
	switch p.state {
	case scStart:
		switch {
		case b == '-':
			p.state = scMinus
		case b == '0':
			p.state = scZero
		case digit:
			p.state = scInt
		case b == 't':
			p.state, p.lit, p.at = scLit, "true", 1
		case b == 'f':
			p.state, p.lit, p.at = scLit, "false", 1
		case b == 'n':
			p.state, p.lit, p.at = scLit, "null", 1
		default:
			p.state = scDead
		}
	case scMinus:
		switch {
		case b == '0':
			p.state = scZero
		case digit:
			p.state = scInt
		default:
			p.state = scDead
		}
	case scZero, scInt:
		switch {
		case digit && p.state == scInt:
		case b == '.':
			p.state = scDot
		case b == 'e' || b == 'E':
			p.state = scE
		case jsonSpace(b):
			p.state = scAfter
		default:
			p.state = scDead
		}
	case scDot:
		p.state = map[bool]uint8{true: scFrac, false: scDead}[digit]
	case scFrac:
		switch {
		case digit:
		case b == 'e' || b == 'E':
			p.state = scE
		case jsonSpace(b):
			p.state = scAfter
		default:
			p.state = scDead
		}
	case scE:
		switch {
		case b == '+' || b == '-':
			p.state = scESign
		case digit:
			p.state = scExp
		default:
			p.state = scDead
		}
	case scESign:
		p.state = map[bool]uint8{true: scExp, false: scDead}[digit]
	case scExp:
		switch {
		case digit:
		case jsonSpace(b):
			p.state = scAfter
		default:
			p.state = scDead
		}
	case scLit:
		switch {
		case p.at < len(p.lit) && p.lit[p.at] == b:
			p.at++
		case p.at == len(p.lit) && jsonSpace(b):
			p.state = scAfter
		default:
			p.state = scDead
		}
	case scAfter:
		if !jsonSpace(b) {
			p.state = scDead
		}
	}
	return p.state != scDead
}
