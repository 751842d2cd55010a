package enforce

import (
	"context"
	"errors"
	"sort"

	"github.com/enforcer-go/enforcer/enforce/internal/guard"
	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
	"github.com/enforcer-go/enforcer/enforce/internal/repair"
	"github.com/enforcer-go/enforcer/enforce/internal/scan"
)

// Incremental judges an answer as its bytes arrive ([Incremental.Write]),
// and gives the whole answer's verdict at [Incremental.Close], exactly as
// [Schema.Check] does. Make one with [Schema.Stream]; it is not safe for
// concurrent use.
//
// A write fails early, with a *[CheckError], only when no completion of
// the bytes read can pass: at json-parse, every completion within the
// size bound fails with that very error; at schema-validate, its one
// issue is among Check's issues for every completion that parses within
// the bounds ([MaxAnswerBytes], [MaxCheckWork], and numbers that fit a
// float64 where enum, const or uniqueItems compare them: Check reports
// such a number alone). Where the schema does not let a prefix decide,
// the verdict waits for Close.
type Incremental struct {
	// kind judges in sc's place for a contract of a Kind; mend for a
	// schema with repairs.
	kind *kindStream
	mend *repair.Stream
	sc   scan.Scanner
	host streamHost
	// strs holds the strings to the built-in rules as they stream
	// (rule_stream_json.go), and cut is its verdict once it gave one.
	strs *stringWatch
	cut  error
	// closed: Close was called; a later write is refused.
	closed bool
}

// Stream returns an incremental judge for an answer that arrives in
// pieces: see [Incremental] for when it fails an answer before it ends
// and what that verdict promises. Those of one Schema may run
// concurrently.
func (s *Schema) Stream() *Incremental {
	if s.reading != nil {
		return &Incremental{kind: s.reading.stream(s)}
	}
	if s.repairs != 0 {
		return &Incremental{mend: repair.NewStream(repair.Set(s.repairs), s.maxAnswerBytes(), (*repairContract)(s))}
	}
	return s.stream(streamHost{s: s}, false)
}

// stream is Stream without repairs, asking h; noSchema: no early
// verdicts at schema-validate (the strict judge of a repair stream, when
// values may still be coerced).
func (s *Schema) stream(h streamHost, noSchema bool) *Incremental {
	st := &Incremental{host: h}
	st.sc.Init(scan.Config{Plan: s.plan, Fast: s.parts().fast, FanOut: s.parts().work.Fan != nil, Canonical: s.canonical,
		Limit: s.maxAnswerBytes(), NoSchema: noSchema, Validating: len(h.pointed) > 0}, &st.host)
	return st
}

// StreamValidating returns an [Incremental] that also asks the schema's
// validators of one member ([Validator.At]), with ctx and at, as soon as
// that member's value closes: an issue they find fails the answer there.
// One that errs, panics or outlives ctx gives no early verdict. A text
// answer ([Text]) is also held, as it streams, to the prefix-sound
// built-in rules, and a JSON answer's strings to those while open and to
// every built-in rule once closed (docs/guardrails.md says which).
func (s *Schema) StreamValidating(ctx context.Context, at Try) *Incremental {
	if t, ok := s.reading.(*text); ok && s.repairs == 0 {
		return &Incremental{kind: t.streamRules(s)}
	}
	if s.repairs != 0 || s.reading != nil {
		return s.Stream() // validators judge the mended answer, or a kind's, at its end
	}
	h := streamHost{s: s, vctx: ctx, vtry: at}
	for _, v := range s.validators {
		// Only a rule that fails the answer may cut it: a warning or a
		// fix accepts it, and a tripwire stops the run at the end.
		if v.pointed && (v.policy == "" || v.policy == PolicyRetry) && v.str == nil {
			h.pointed = append(h.pointed, v)
		}
	}
	st := s.stream(h, false)
	st.strs = newStringWatch(s)
	return st
}

var errStreamClosed = errors.New("enforce: write to a closed Incremental")

// Write judges the next bytes of the answer. While the answer can still
// pass it returns len(p), nil. Once it cannot, it returns the early
// verdict, a *[CheckError], with n the bytes of p read up to and
// including the byte at which the verdict was given; every later write
// returns 0 and the same verdict.
func (st *Incremental) Write(p []byte) (int, error) {
	switch {
	case st.kind != nil:
		return st.kind.write(string(p))
	case st.closed:
		return 0, errStreamClosed
	case st.mend != nil:
		return st.mend.WriteString(string(p))
	case st.strs != nil:
		return st.watched(string(p))
	}
	return st.sc.Write(p)
}

// WriteString is [Incremental.Write] for a string.
func (st *Incremental) WriteString(p string) (int, error) {
	switch {
	case st.kind != nil:
		return st.kind.write(p)
	case st.closed:
		return 0, errStreamClosed
	case st.mend != nil:
		return st.mend.WriteString(p)
	case st.strs != nil:
		return st.watched(p)
	}
	return st.sc.WriteString(p)
}

// watched is WriteString for a stream whose strings are held to rules:
// the scanner reads up to the byte that makes a rule's issue sure, and
// its own verdict, given before that byte, stands. A string's closing
// quote is kept from it: it would deliver the string as an element.
func (st *Incremental) watched(p string) (int, error) {
	if st.cut != nil {
		return 0, st.cut
	}
	k, ce, shut := st.strs.read(p)
	if ce == nil {
		return st.sc.WriteString(p)
	}
	read := k
	if shut {
		read--
	}
	if n, err := st.sc.WriteString(p[:read]); err != nil {
		return n, err
	}
	st.cut = ce
	return k, ce
}

// Close ends the answer and returns its verdict: the early verdict if a
// write gave one, else exactly what [Schema.Check] returns for every byte
// written. Later calls return the same.
func (st *Incremental) Close() error {
	if st.kind != nil {
		return st.kind.close()
	}
	st.closed = true
	switch {
	case st.mend != nil:
		return st.mend.Close()
	case st.cut != nil:
		return st.cut
	}
	return st.sc.Close()
}

// Partial returns the answer so far, for showing a typed value as it
// forms. Call it after every write: it costs about the length of doc.
//
// doc is the bytes read as one closed JSON document (nil until a value
// begins): an open string keeps its whole characters, open containers
// are closed, and a member or item whose value has not begun, or is a
// number or literal not yet ended, is left out. doc is the caller's.
//
// settled holds, in the order they settled, the JSON Pointers of the
// members and items that are whole and pass the subschema their path
// gives them, where the path alone decides it (through properties,
// additionalProperties, items and $ref). Later calls return the same
// pointers followed by new ones; the slice is shared, so do not change
// it. A Go type's verdict ([Schema.For]) is given only by Close.
//
// Partial's work is bounded: past four times the values read plus 4096
// value checks, no more values settle. For a contract of a [Kind], doc
// and settled are nil.
func (st *Incremental) Partial() (doc []byte, settled []string) {
	if st.kind != nil {
		return nil, nil
	}
	if st.mend != nil {
		return st.mend.Partial()
	}
	return st.sc.Partial()
}

// streamHost is a Schema as an Incremental's scanner asks of it, with
// the validators of one member it asks as values close, with vctx and
// vtry ([Schema.StreamValidating]).
type streamHost struct {
	s       *Schema
	pointed []Validator
	vctx    context.Context
	vtry    Try
}

func (h *streamHost) Syntax(prefix string, err error) error { return parseFailure(prefix, err) }

func (h *streamHost) TooLong() error { return tooLong(h.s.maxAnswerBytes()) }

func (h *streamHost) Check(text string) error { return h.s.Check(text) }

func (h *streamHost) CheckParsed(text string, doc any, values, names int, passed bool) error {
	return h.s.checkParsed(text, doc, values, names, passed)
}

// Ask gives the first issue of doc that match takes as the verdict.
func (h *streamHost) Ask(doc any, match func(path, keyword string) bool) error {
	var ce *CheckError
	if !errors.As(h.s.validate(doc), &ce) {
		return nil
	}
	for _, is := range ce.Issues {
		if match(is.Path, is.Keyword) {
			return &CheckError{Stage: StageSchemaValidate, Issues: []Issue{is}}
		}
	}
	return nil
}

// Closed gives the first issues a validator of the member at ptr finds
// in text, its value, as the verdict. Nothing after a closed value can
// change it, so an issue found on it is the one the validator finds at
// the answer's end.
func (h *streamHost) Closed(ptr, text string) error {
	for _, v := range h.pointed {
		if v.at != ptr {
			continue
		}
		// The member as [Validator.member] gives it at the answer's end:
		// parsed and encoded again, so the validator reads the same text.
		enc, ok := jsonvalue.Member(text, "")
		if !ok {
			continue
		}
		r := guard.Check(h.vctx, func() ([]Issue, error) { return v.check(h.vctx, enc, h.vtry) }, isBeyondRepair)
		if r.Stopped != nil || r.Failed {
			continue
		}
		issues, err := v.found(r)
		if err != nil || len(issues) == 0 {
			continue // no issue, or the validator could not judge: the end decides
		}
		sort.SliceStable(issues, func(i, k int) bool { return issues[i].Path < issues[k].Path })
		return &CheckError{Stage: StageSchemaValidate, Issues: issues, byValidators: true, beyondRepair: r.Err != nil}
	}
	return nil
}
