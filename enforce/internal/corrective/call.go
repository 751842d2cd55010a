package corrective

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// A Call is what the tool message answering a tool call whose arguments
// failed says: the same parts as an answer's message, in the same order
// (our words, then the issues as data), about the call instead.
type Call struct {
	Tool string
	// Failures is this failed call's place among the tool's failed calls
	// in a row, Limit how many end the run (0: no limit, and no count is
	// said).
	Failures, Limit int
	Stage           Stage // Parse or Validate
	Repaired        string
	// Stopped is how many bytes of the arguments were read before an
	// early verdict stopped them; 0: read whole.
	Stopped int
	Issues  []Issue
}

// String is the message's text. It begins "error: ", as every tool
// message of a call that did not run does.
func (c Call) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "error: the tool %s was not run: the arguments of this call did not satisfy its parameters schema.\n", strconv.Quote(jsonvalue.Clip(c.Tool, MaxQuote)))
	if c.Limit > 0 {
		fmt.Fprintf(&b, "This was failed call %d of %d allowed in a row for this tool.\n", c.Failures, c.Limit)
	}
	if c.Stopped > 0 {
		fmt.Fprintf(&b, "We stopped reading the arguments after their first %d bytes: at that point they could no longer satisfy the parameters schema, so the rest was not read.\n", c.Stopped)
	}
	if c.Stage == Parse {
		b.WriteString("Stage: json-parse — the arguments must be exactly one JSON value, with no text, markdown fences or second value around it.\n")
	} else {
		b.WriteString("Stage: schema-validate — the arguments are JSON but do not match the tool's parameters schema.\n")
	}
	if c.Repaired != "" {
		fmt.Fprintf(&b, "Before judging them we mended their form (%s); the issues are those of the mended arguments.\n", c.Repaired)
	}
	b.WriteString("Call the tool again with corrected arguments, or go on without it.\n")
	writeIssues(&b, c.Issues)
	return b.String()
}
