package enforce

import (
	"errors"
	"fmt"

	"github.com/enforcer-go/enforcer/fnv"
)

// Outcome is what became of one final answer.
type Outcome string

const (
	// OutcomePassed: the answer kept the contract; the run returns it.
	OutcomePassed Outcome = "passed"
	// OutcomeRetried: it failed and a corrective turn was sent.
	OutcomeRetried Outcome = "retried"
	// OutcomeExhausted: it failed and no retry will follow — none were
	// left, a rewrite broke a valid answer (BrokenBy), it was cut off
	// twice in a row (Truncated), or the model gave none (Withheld). The
	// answer stands.
	OutcomeExhausted Outcome = "exhausted"
)

// Attempt is one row of the ledger: one final answer, in order.
type Attempt struct {
	Attempt               int     `json:"attempt"`   // 1-based within the run
	Iteration             int     `json:"iteration"` // the ReAct iteration that produced the answer
	Outcome               Outcome `json:"outcome"`
	Stage                 Stage   `json:"stage,omitempty"`                 // absent on a passing row
	Error                 string  `json:"error,omitempty"`                 // validator's own message, verbatim; absent on a passing row
	Path                  string  `json:"path,omitempty"`                  // JSON Pointer of the failing field, when known
	CorrectiveMessageHash string  `json:"correctiveMessageHash,omitempty"` // fnv.Hex32a of the corrective message; only on 'retried'
	BrokenBy              string  `json:"brokenBy,omitempty"`              // only on 'exhausted'
	// Truncated: the failing answer was cut off at the model's output
	// limit ([Answer.Truncated]); the stage and error are as judged.
	Truncated bool `json:"truncated,omitempty"`
	// Withheld: the model gave no answer, for this reason
	// ([Answer.Withheld]); only on 'exhausted', which then has no stage.
	Withheld string `json:"withheld,omitempty"`
	// Cut: the caller stopped reading the answer at a [Stream]'s early
	// verdict ([Answer.Cut]), which the stage, error and path are; it
	// says how far the answer got. Its Verdict is not kept here.
	Cut *Cut `json:"cut,omitempty"`
}

// Cut says an answer was stopped before its end: a [Stream] judging it as
// it arrived gave an early verdict, and the caller stopped reading there,
// so the model stopped writing (and being paid for).
type Cut struct {
	// Verdict is the Stream's early verdict, the *CheckError its Write
	// returned. Only [Answer.Cut] carries it.
	Verdict *CheckError `json:"-"`
	// Bytes is the length of the answer up to and including the byte
	// that doomed it, where the Stream gave its verdict: the answer the
	// ledger is given, and the model is shown. Bytes that came after it
	// in the same piece are not kept.
	Bytes int `json:"bytes"`
	// OutputTokens is the model's output tokens by then, when the
	// provider reported them before the cut; 0 when it did not.
	OutputTokens int `json:"outputTokens,omitempty"`
}

// Rewrite is one step that changed the model's answer after the model gave
// it (an act-output middleware), with the answer as that step left it.
type Rewrite struct {
	By   string // the step's name
	Text string // the answer after the step
}

// Answer is one final answer to judge.
type Answer struct {
	// Iteration is the loop iteration that produced it (1-based).
	Iteration int
	// Given is the answer as the model gave it, before any rewrite.
	Given string
	// Rewrites are the steps that changed it since, in order; the answer
	// that stands is the last one's Text, or Given when there are none.
	Rewrites []Rewrite
	// Last says no further answer can follow (the loop has no iteration
	// left for a corrective turn): a failing answer is exhausted even with
	// retries left, so no row claims a correction that is never sent.
	Last bool
	// Truncated says the model was cut off at its output limit before it
	// finished (a provider's "length" or "max_tokens"). A failing answer's
	// row and error say so, and its corrective message asks for a shorter
	// answer; when the answer before it was cut off too, it is exhausted
	// at once, retries unspent, since asking again under the same limit
	// would most likely be cut again.
	Truncated bool
	// Withheld, when not empty, says why the model gave no answer at all
	// (a refusal, a content filter: the caller's word for it). Nothing is
	// judged: the row is exhausted, retries unspent, and names the reason.
	Withheld string
	// Cut, when not nil, says the caller stopped reading the answer at a
	// [Stream]'s early verdict (Cut.Verdict): Given is the answer as far
	// as it arrived. The verdict is recorded as it stands, not judged
	// again: Check would judge the cut answer's end, not where it failed.
	// Its corrective message says the answer was stopped there.
	Cut *Cut
}

// Text is the answer as it stands after every rewrite.
func (a Answer) Text() string {
	if n := len(a.Rewrites); n > 0 {
		return a.Rewrites[n-1].Text
	}
	return a.Given
}

// outputError is the error for a's failing answer.
func (a Answer) outputError(ce *CheckError, brokenBy string, attempts []Attempt) *OutputError {
	e := newOutputError(a.Text(), ce, brokenBy, attempts)
	e.Truncated = a.Truncated
	return e
}

// Verdict is what the ledger decided about one answer.
type Verdict struct {
	// Row is the attempt row just recorded.
	Row Attempt
	// Corrective is the message to send the model as a user turn before
	// looping again; non-empty exactly when Row.Outcome is OutcomeRetried.
	// Row.CorrectiveMessageHash is fnv.Hex32a(Corrective).
	Corrective string
	// Err is nil when the answer passed or will be retried, and an
	// *OutputError when the run must stop with the answer failing. It is
	// nil for a withheld answer too: that was never judged, and the caller
	// knows why it stopped.
	Err error
}

// Ledger judges the final answers of one run against a contract with a
// retry budget, and records one Attempt row per answer. Use one Ledger per
// run; it is not safe for concurrent use.
type Ledger struct {
	schema  *Schema
	retries int
	rows    []Attempt
}

// NewLedger returns a ledger for a run that opted into retries (0 to
// MaxRetries). A run that did not opt in has no ledger: judge its answer
// with [Schema.Judge].
func NewLedger(s *Schema, retries int) (*Ledger, error) {
	if s == nil {
		return nil, errors.New("enforce: NewLedger needs a schema")
	}
	if retries < 0 || retries > MaxRetries {
		return nil, fmt.Errorf("%w: %d is not in 0..%d", ErrRetries, retries, MaxRetries)
	}
	return &Ledger{schema: s, retries: retries}, nil
}

// Attempts returns a copy of the rows recorded so far, never nil.
func (l *Ledger) Attempts() []Attempt {
	return append(make([]Attempt, 0, len(l.rows)), l.rows...)
}

// RetriesLeft is how many corrective turns the ledger may still send.
func (l *Ledger) RetriesLeft() int {
	used := 0
	for _, r := range l.rows {
		if r.Outcome == OutcomeRetried {
			used++
		}
	}
	return l.retries - used
}

// Judge checks one final answer and records its row:
//   - it keeps the contract: a passed row;
//   - it fails, but the model's own answer passed and a rewrite broke it:
//     an exhausted row naming the rewrite that first broke it (BrokenBy),
//     with retries left unspent, since re-asking cannot fix a rewrite;
//   - it fails with retries left: a retried row and a corrective message;
//   - it fails with none left: an exhausted row.
//
// A truncated answer ([Answer.Truncated]) is judged the same way, and its
// failing row says Truncated; its corrective message says the answer was
// cut off at the output limit and asks for a shorter one, and if the
// previous row was truncated too it is exhausted at once instead, so cut
// answers never loop. A withheld answer ([Answer.Withheld]) is not judged:
// its row is exhausted at once and says Withheld.
//
// A cut answer ([Answer.Cut]) is not judged: its row is the early verdict
// and says how far the answer got (Cut), and its corrective message says
// the answer was stopped at that point.
//
// The model's own answer (Given) is judged again only on the failure path,
// and only when rewrites changed it.
func (l *Ledger) Judge(a Answer) Verdict {
	row := Attempt{Attempt: len(l.rows) + 1, Iteration: a.Iteration}
	if a.Withheld != "" {
		row.Outcome, row.Withheld = OutcomeExhausted, a.Withheld
		l.rows = append(l.rows, row)
		return Verdict{Row: row}
	}
	ce := a.early()
	if ce == nil {
		err := l.schema.Check(a.Text())
		if err == nil {
			row.Outcome = OutcomePassed
			l.rows = append(l.rows, row)
			return Verdict{Row: row}
		}
		errors.As(err, &ce)
	}
	row.Stage, row.Error, row.Path = ce.Stage, ce.Issues[0].Message, ce.Path()
	row.Truncated = a.Truncated
	if a.Cut != nil {
		row.Cut = &Cut{Bytes: a.Cut.Bytes, OutputTokens: a.Cut.OutputTokens}
	}

	if by := l.schema.brokenBy(a); by != "" {
		row.Outcome = OutcomeExhausted
		row.BrokenBy = by
		l.rows = append(l.rows, row)
		return Verdict{Row: row, Err: a.outputError(ce, by, l.Attempts())}
	}
	cutAgain := a.Truncated && len(l.rows) > 0 && l.rows[len(l.rows)-1].Truncated
	if left := l.RetriesLeft(); left > 0 && !a.Last && !cutAgain {
		msg := ce.corrective(row.Attempt, l.retries+1, a.Truncated, row.Cut)
		row.Outcome = OutcomeRetried
		row.CorrectiveMessageHash = fnv.Hex32a(msg)
		l.rows = append(l.rows, row)
		return Verdict{Row: row, Corrective: msg}
	}
	row.Outcome = OutcomeExhausted
	l.rows = append(l.rows, row)
	return Verdict{Row: row, Err: a.outputError(ce, "", l.Attempts())}
}

// early is the verdict of a cut answer, nil for one to judge.
func (a Answer) early() *CheckError {
	if a.Cut == nil {
		return nil
	}
	return a.Cut.Verdict
}

// brokenBy names the rewrite that first turned the model's passing answer
// into a failing one, judging after each rewrite that changed the text. It
// returns "" when the model's own answer fails too, or nothing was
// rewritten. Call it only when a.Text() fails: it judges again.
func (s *Schema) brokenBy(a Answer) string {
	if len(a.Rewrites) == 0 || a.Given == a.Text() || a.early() != nil || s.Check(a.Given) != nil {
		return ""
	}
	prev := a.Given
	for _, rw := range a.Rewrites {
		if rw.Text == prev {
			continue
		}
		if s.Check(rw.Text) != nil {
			return rw.By
		}
		prev = rw.Text
	}
	return ""
}
