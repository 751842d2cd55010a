package enforce

import (
	"github.com/enforcer-go/enforcer/enforce/internal/corrective"
	"github.com/enforcer-go/enforcer/enforce/internal/repair"
)

// maxIssueQuote caps the bytes of one pointer, and of one validator
// message, a corrective message quotes.
const maxIssueQuote = corrective.MaxQuote

// Corrective is the user turn asking the model to fix the answer e was
// returned for, attempt of maxAttempts: our own words first, then the
// issues, each pointer and message quoted as data and capped, so no word
// of ours follows text from the answer. The same inputs give the same
// text, so its hash is stable. A [Ledger] writes it into
// [Verdict.Corrective].
func (e *CheckError) Corrective(attempt, maxAttempts int) string {
	// The caps: corrective.MaxQuote bytes per pointer or message, with a
	// marker; the list stops at corrective.MaxText bytes with "and K
	// more".
	return e.corrective(attempt, maxAttempts, false, nil)
}

// corrective is [CheckError.Corrective]; for a truncated answer it says
// first that the answer was truncated and asks for a shorter one, and for an
// answer stopped at an early verdict that it was stopped there.
func (e *CheckError) corrective(attempt, maxAttempts int, truncated bool, stopped *Cut) string {
	m := corrective.Message{Attempt: attempt, MaxAttempts: maxAttempts, Truncated: truncated, Stopped: -1,
		Repaired: repair.Set(e.Repaired).Words(), Words: e.words, Issues: make([]corrective.Issue, len(e.Issues))}
	if stopped != nil {
		m.Stopped, m.InThinking = stopped.Bytes, stopped.Thinking
	}
	switch {
	case e.Stage == StageDegenerate:
		m.Stage = corrective.Degenerate
	case e.Stage == StageNoAnswer:
		m.Stage, m.InReasoning = corrective.NoAnswer, e.inReasoning
	case e.Stage == StageJSONParse:
		m.Stage = corrective.Parse
	case e.byValidators:
		m.Stage = corrective.Validators
	}
	for i, is := range e.Issues {
		m.Issues[i] = corrective.Issue{Path: is.Path, Message: is.Message}
	}
	return m.String()
}

// reply is the instruction of e's corrective message.
func (e *CheckError) reply() string {
	if e.words == nil {
		return corrective.JSON.Reply
	}
	return e.words.Reply
}
