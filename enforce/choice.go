package enforce

import (
	"encoding/json"
	"math"

	"github.com/enforcer-go/enforcer/enforce/internal/corrective"
	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
	"github.com/enforcer-go/enforcer/enforce/internal/label"
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
// must be distinct, also in case and in how a letter is composed (é, or
// e and U+0301); a *[SchemaError] says which is not.
func Choice(labels ...Label) (*Schema, error) { return newChoice(false, labels) }

// MultiLabel returns the contract of an answer that is a set of labels:
// one or more, each at most once. It reads as [Choice] does, with a
// JSON array of labels ("[\"billing\", \"urgent\"]") for the label and
// {"labels": [...]} for the object form; a single label, bare or a JSON
// string, is a set of one. Issues are at the pointers of the array
// ("/1"), or of the object form ("/labels/1").
func MultiLabel(labels ...Label) (*Schema, error) { return newChoice(true, labels) }

// choice is the reading of a Choice or a MultiLabel: its labels (see
// package label), and the schema of the label itself (or the array of
// labels), for every form but the object form, which the outer schema
// judges.
type choice struct {
	set *label.Set
	own *Schema
	// bare is the verdict on any answer that reads as a string that is
	// no label: the early verdict of an answer doomed as it streams.
	bare  *CheckError
	w     *corrective.Words
	instr string
}

func newChoice(multi bool, labels []Label) (*Schema, error) {
	what := "Choice"
	if multi {
		what = "MultiLabel"
	}
	names, descs := make([]string, len(labels)), make([]string, len(labels))
	for i, l := range labels {
		names[i], descs[i] = l.Name, l.Description
	}
	set, err := label.New(what, multi, names, descs, maxIssueQuote)
	if err != nil {
		return nil, &SchemaError{Reason: err.Error()}
	}
	c := &choice{set: set}
	object, value := set.Schemas()
	s, err := CompileSchema([]byte(object))
	if err != nil {
		return nil, err
	}
	if c.own, err = CompileSchema([]byte(value)); err != nil {
		return nil, err
	}
	c.own.maxAnswer = math.MaxInt // the answer's size is the outer schema's to bound
	w := set.Words()
	c.w = &w
	c.instr = set.Instructions()
	err = c.own.checkStrict(set.ValueOf(jsonvalue.Quote("\x00"))) // no label holds a control character
	c.bare, _ = err.(*CheckError)
	if c.bare == nil {
		return nil, &SchemaError{Reason: what + ": a string that is no label passed its schema"}
	}
	c.bare.words = c.w
	s.reading = c
	return s, nil
}

func (c *choice) kind() Kind {
	if c.set.Multi {
		return KindMultiLabel
	}
	return KindChoice
}

// read reads answer, within its size bound, as label.Set.Read does,
// with the json-parse failure of an answer that begins as JSON and is
// not.
func (c *choice) read(answer string) (string, bool, *CheckError) {
	js, object, err := c.set.Read(answer)
	if err != nil {
		return "", false, parseFailure(answer, err)
	}
	return js, object, nil
}

func (c *choice) judge(s *Schema, answer string) (string, Repairs, error) {
	if err := s.checkSize(answer); err != nil {
		err.words = c.w
		return answer, 0, err
	}
	js, object, perr := c.read(answer)
	if perr != nil {
		perr.words = c.w
		return answer, 0, perr
	}
	err := c.check(s, js, object)
	if err == nil || s.repairs&RepairLabel == 0 {
		return answer, 0, err
	}
	mended, ok := c.set.Mend(js, object)
	if !ok {
		return answer, 0, err
	}
	text := mended
	if !object && !c.set.Multi {
		_ = json.Unmarshal([]byte(mended), &text) // the label as the prompt asks for it
	}
	if err := c.check(s, mended, object); err != nil {
		err.(*CheckError).Repaired = RepairLabel
		return text, RepairLabel, err
	}
	return text, RepairLabel, nil
}

// check judges js, the object form or the label's value, strictly.
func (c *choice) check(s *Schema, js string, object bool) error {
	var err error
	if object {
		err = s.checkStrict(js)
	} else {
		err = c.own.checkStrict(js)
	}
	if ce, ok := err.(*CheckError); ok {
		ce.words = c.w
	}
	return err
}

func (c *choice) value(s *Schema, answer string) (string, bool) {
	return c.set.Value(answer, s.repairs&RepairLabel != 0)
}

func (c *choice) words() *corrective.Words { return c.w }

func (c *choice) instructions() string { return c.instr }

// stream judges a choice's answer as it arrives (see label.Stream): a
// doomed one's verdict is c.bare.
func (c *choice) stream(s *Schema) *kindStream {
	ls := c.set.Stream(s.maxAnswerBytes(), s.repairs&RepairLabel != 0)
	return &kindStream{s: s, text: ls.Text, read: func(p string) (int, error) {
		n, doom := ls.WriteString(p)
		switch doom {
		case label.TooLong:
			ce := tooLong(s.maxAnswerBytes())
			ce.words = c.w
			return n, ce
		case label.NoLabel:
			v := *c.bare
			v.Issues = append([]Issue(nil), v.Issues...)
			return n, &v
		}
		return n, nil
	}}
}
