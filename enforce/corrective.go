package enforce

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// Caps that keep a corrective message bounded whatever the answer was.
const (
	maxIssueText  = 2048 // bytes of issue lines, then "and K more"
	maxIssueQuote = 200  // bytes of one pointer, and of one validator message
)

// Corrective is the user turn asking the model to fix the answer e was
// returned for, attempt of maxAttempts: our own words first, then the
// issues, each pointer and message quoted as data and capped, so no word
// of ours follows text from the answer. The same inputs give the same
// text, so its hash is stable. A [Ledger] writes it into
// [Verdict.Corrective].
func (e *CheckError) Corrective(attempt, maxAttempts int) string {
	// The caps: maxIssueQuote bytes per pointer or message, with a
	// marker; the list stops at maxIssueText bytes with "and K more".
	return e.corrective(attempt, maxAttempts, false, nil)
}

// corrective is [CheckError.Corrective]; for a truncated answer it says
// first that the answer was truncated and asks for a shorter one, and for an
// answer stopped at an early verdict that it was stopped there.
func (e *CheckError) corrective(attempt, maxAttempts int, truncated bool, stopped *Cut) string {
	ce := e
	var b strings.Builder
	switch {
	case stopped != nil && ce.Stage == StageDegenerate:
		fmt.Fprintf(&b, "We stopped reading your previous answer after its first %d bytes: it had degenerated into whitespace or a repetition that does not end, so the rest was not read.\n", stopped.Bytes)
	case stopped != nil:
		fmt.Fprintf(&b, "We stopped reading your previous answer after its first %d bytes: at that point it could no longer satisfy the required output format, so the rest was not read.\n", stopped.Bytes)
	}
	if truncated {
		b.WriteString("Your previous answer was truncated at the output length limit before it was complete. " +
			"Give a shorter answer that fits: keep every required field, keep text values brief, leave out optional detail.\n")
	}
	fmt.Fprintf(&b, "Your previous answer did not satisfy the required output format. This was attempt %d of %d.\n", attempt, maxAttempts)
	w := ce.words // an answer of a Kind's, or a JSON answer's
	if w == nil {
		w = &jsonWords
	}
	switch {
	case ce.Stage == StageDegenerate:
		b.WriteString("Stage: degenerate — write the answer once, compactly, with no run of blank space and no part repeated over and over.\n")
	case ce.Stage == StageJSONParse:
		b.WriteString(w.parse)
	case ce.byValidators:
		b.WriteString(w.validators)
	default:
		b.WriteString(w.validate)
	}
	if ce.Repaired != 0 {
		fmt.Fprintf(&b, "Before judging it we mended its form (%s); the issues are those of the mended answer.\n", repairWords(ce.Repaired))
	}
	b.WriteString(w.reply)
	b.WriteString("\n")
	b.WriteString(w.after)
	lines := make([]string, 0, len(ce.Issues))
	written := 0
	for i, is := range ce.Issues {
		line := "- at " + pointerLabel(jsonvalue.Clip(is.Path, maxIssueQuote)) + ": " + strconv.Quote(jsonvalue.Clip(is.Message, maxIssueQuote))
		if written+len(line)+1 > maxIssueText && i > 0 {
			break
		}
		lines = append(lines, line)
		written += len(line) + 1
	}
	switch n := len(ce.Issues); {
	case len(lines) < n:
		fmt.Fprintf(&b, "The first %d of %d issues follow, each pointer and message quoted as data:\n", len(lines), n)
	case n == 1:
		b.WriteString("The issue follows, its pointer and message quoted as data:\n")
	default:
		fmt.Fprintf(&b, "The %d issues follow, each pointer and message quoted as data:\n", n)
	}
	b.WriteString(strings.Join(lines, "\n"))
	return b.String()
}

func pointerLabel(p string) string {
	if p == "" {
		return "the root (\"\")"
	}
	return strconv.Quote(p)
}

// repairWords says in our words what the repairs of rs did.
func repairWords(rs Repairs) string {
	var list []string
	for i, k := range repairKinds {
		if rs&(1<<i) != 0 {
			list = append(list, k.words)
		}
	}
	return strings.Join(list, "; ")
}
