package enforce

import "github.com/enforcer-go/enforcer/enforce/internal/corrective"

// Kind is the output kind of an answer, beyond one JSON value ("") of
// the contract: a contract's own, for an answer read from the model's
// text before it is judged ([Schema.Kind]: choice, multi-label, text), or
// the way a JSON answer was delivered ([WithKind]: elements). A row says
// it ([Attempt.Kind]).
type Kind string

const (
	// KindChoice ("choice"): one label of a set ([Choice]).
	KindChoice Kind = "choice"
	// KindMultiLabel ("multi-label"): one or more labels of a set
	// ([MultiLabel]).
	KindMultiLabel Kind = "multi-label"
	// KindText ("text"): plain text held to rules ([Text]).
	KindText Kind = "text"
	// KindElements ("elements"): a JSON answer whose array's elements
	// were delivered as they closed ([NewElements]).
	KindElements Kind = "elements"
	// KindToolCall ("tool-call"): a row of a tool call's arguments
	// judged against its tool's parameters ([CallLedger]), not an answer.
	KindToolCall Kind = "tool-call"
)

// Kind returns the kind of answer s takes: "" for one JSON value (never
// [KindElements], a way of delivering one).
func (s *Schema) Kind() Kind {
	if s.reading == nil {
		return ""
	}
	return s.reading.kind()
}

// Instructions returns the contract in words for a model's prompt, for a
// contract whose answer is not one JSON value alone: the labels of a
// [Choice] or [MultiLabel] with their descriptions and the forms the
// answer may take, the rules of a [Text]. It is "" for a JSON Schema,
// whose JSON ([Schema.JSON]) says it.
func (s *Schema) Instructions() string {
	if s.reading == nil {
		return ""
	}
	return s.reading.instructions()
}

// A reading is how a contract of a [Kind] reads the model's text: what
// value it judges, in which frame its issues' pointers are, and the
// words its corrective message uses.
type reading interface {
	kind() Kind
	// judge is Check for the kind: the text judged (the answer, or as
	// the repairs of s mended it), the repairs applied, and nil or a
	// *CheckError, every issue in it and its words set.
	judge(s *Schema, answer string) (string, Repairs, error)
	// value is the JSON value an answer reads as, for validators and
	// Decode; false when the answer reads as none.
	value(s *Schema, answer string) (string, bool)
	stream(s *Schema) *kindStream
	instructions() string
	words() *corrective.Words
}

// judgeForm is checkForm for a contract of any kind.
func (s *Schema) judgeForm(answer string) (string, Repairs, error) {
	if s.reading != nil {
		return s.reading.judge(s, answer)
	}
	return s.checkForm(answer)
}

// validated is the JSON value s's validators judge for text, an answer
// (as judgeForm returned it) that keeps the contract.
func (s *Schema) validated(text string) string {
	if s.reading == nil {
		return text
	}
	v, _ := s.reading.value(s, text)
	return v
}

// kindWords returns the words of s's corrective messages; nil for a
// JSON Schema's.
func (s *Schema) kindWords() *corrective.Words {
	if s.reading == nil {
		return nil
	}
	return s.reading.words()
}

// kindStream judges an answer of a kind as it arrives, in an
// [Incremental]'s place: read is the kind room's stream (how many bytes
// of p it read, and the early verdict once one is given), text the bytes
// read, which Close judges with Check.
type kindStream struct {
	s       *Schema
	read    func(p string) (int, error)
	text    func() string
	verdict error
	closed  bool
}

func (ks *kindStream) write(p string) (int, error) {
	if ks.closed {
		return 0, errStreamClosed
	}
	if ks.verdict != nil {
		return 0, ks.verdict
	}
	n, err := ks.read(p)
	ks.verdict = err
	return n, err
}

func (ks *kindStream) close() error {
	if !ks.closed {
		ks.closed = true
		if ks.verdict == nil {
			ks.verdict = ks.s.Check(ks.text())
		}
	}
	return ks.verdict
}
