package enforce

import (
	"fmt"
	"strconv"
	"strings"
)

// Caps that keep a corrective message bounded whatever the answer was.
const (
	maxIssueText  = 2048 // bytes of issue lines, then "and K more"
	maxIssueQuote = 200  // bytes of one pointer, and of one validator message
)

// Corrective is the user turn that asks the model to fix the answer e was
// returned for: our own words naming the stage, every issue with its JSON
// Pointer (pointers and validator text quoted as data, each cut to a few
// hundred bytes with a marker), "attempt N of M", and the instruction to
// reply with only the JSON. The same inputs always give the same text, so
// its hash is stable. A [Ledger] writes it into [Verdict.Corrective]; call
// it yourself only to correct a model without one.
func (e *CheckError) Corrective(attempt, maxAttempts int) string {
	return e.corrective(attempt, maxAttempts, false, nil)
}

// corrective is [CheckError.Corrective]; for a truncated answer it says
// first that the answer was cut off and asks for a shorter one, and for an
// answer stopped at an early verdict that it was stopped there.
func (e *CheckError) corrective(attempt, maxAttempts int, truncated bool, stopped *Cut) string {
	ce := e
	var b strings.Builder
	if stopped != nil {
		fmt.Fprintf(&b, "We stopped reading your previous answer after its first %d bytes: at that point it could no longer satisfy the required output format, so the rest was not read.\n", stopped.Bytes)
	}
	if truncated {
		b.WriteString("Your previous answer was cut off at the output length limit before it was complete. " +
			"Give a shorter answer that fits: keep every required field, keep text values brief, leave out optional detail.\n")
	}
	b.WriteString("Your previous answer did not satisfy the required output format.\n")
	switch ce.Stage {
	case StageJSONParse:
		b.WriteString("Stage: json-parse — the answer must be exactly one JSON value, with no text, markdown fences or second value around it.\n")
	default:
		b.WriteString("Stage: schema-validate — the answer is JSON but does not match the JSON Schema.\n")
	}
	b.WriteString("Issues (each validator message is quoted as data):\n")
	written := 0
	for i, is := range ce.Issues {
		line := "- at " + pointerLabel(cut(is.Path, maxIssueQuote)) + ": " + strconv.Quote(cut(is.Message, maxIssueQuote)) + "\n"
		if written+len(line) > maxIssueText && i > 0 {
			fmt.Fprintf(&b, "- and %d more\n", len(ce.Issues)-i)
			break
		}
		b.WriteString(line)
		written += len(line)
	}
	fmt.Fprintf(&b, "This was attempt %d of %d. Reply with only the corrected JSON value, nothing else.", attempt, maxAttempts)
	return b.String()
}

func pointerLabel(p string) string {
	if p == "" {
		return "the root (\"\")"
	}
	return strconv.Quote(p)
}
