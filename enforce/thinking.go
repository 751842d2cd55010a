package enforce

import (
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/corrective"
)

// Thinking says how much of a reply was the model's thinking (its
// reasoning before the answer), which was kept apart from the answer and
// never judged.
type Thinking struct {
	// Bytes is the thinking's length: what the provider gave apart from
	// the answer, plus, when Inline, what was removed from the start of
	// the reply's text (its tags and blank space included).
	Bytes int `json:"bytes"`
	// Inline: the reply's text began with the thinking in tags
	// (<think>…</think>) or harmony's analysis channel, removed before
	// the answer was judged.
	Inline bool `json:"inline,omitempty"`
	// Answer: the reply's text was empty, and the reasoning given apart
	// ended with the one JSON value that keeps the contract. Given is
	// that value when the caller took it (the agent does under
	// [RepairProse]); blank, the answer never came, and the corrective
	// message asks for it in the text.
	Answer bool `json:"answer,omitempty"`
}

// issueNoAnswer is the keyword of a [StageNoAnswer] issue.
const issueNoAnswer = "answer"

// noAnswer reports whether a holds no answer at all: blank text where the
// answer belongs, after thinking, or at the output limit, or after
// reasoning tokens a provider did not show. Its reasoning spent the reply:
// that is not a malformed answer, and is not judged as one.
func (a Answer) noAnswer() bool {
	if a.Free && a.Cut == nil && strings.TrimSpace(a.Given) == "" {
		return true
	}
	if a.Cut != nil || a.Tool != "" && !a.NoCall || strings.TrimSpace(a.Given) != "" {
		return false
	}
	return a.Thinking.Bytes > 0 || a.Truncated || a.Cost.ReasoningTokens > 0
}

// noAnswerError is the failure of an answer that never came, in the
// words of s's kind.
func (s *Schema) noAnswerError(a Answer) *CheckError {
	msg := "the reply held thinking and no answer"
	switch {
	case a.Truncated:
		msg = "the reply reached the output limit before its answer began"
	case a.Thinking.Answer:
		msg = "the reply's answer was in its reasoning, and its text was empty"
	}
	ce := &CheckError{Stage: StageNoAnswer, Issues: []Issue{{Keyword: issueNoAnswer, Message: msg}}, inReasoning: a.Thinking.Answer}
	switch {
	case a.Free:
		ce.words = &corrective.Words{} // no form: the answer alone is asked for
	case s.reading != nil:
		ce.words = s.reading.words()
	}
	return ce
}
