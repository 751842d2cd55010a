// Package corrective writes enforce's corrective messages: the user turn
// that asks the model to fix a failed answer, our own words first (what
// stopped it, the stage, the repairs applied, the instruction), then the
// issues, each pointer and message quoted as data and capped, so no word
// of ours follows text from the answer. The same inputs give the same
// text. It knows nothing of schemas or the ledger: enforce says what
// failed.
package corrective

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// Caps that keep a corrective message bounded whatever the answer was.
const (
	MaxText  = 2048 // bytes of issue lines, then "and K more"
	MaxQuote = 200  // bytes of one pointer, and of one validator message
)

// Words are what a corrective message says of an answer of a kind: the
// stage lines (json-parse, schema-validate, and the validators'), the
// instruction, and what follows it before the issues (our words: a
// choice's labels).
type Words struct {
	Parse, Validate, Validators, Reply, After string
}

// ReplyOnlyJSON is the instruction that ends a JSON answer's corrective
// message; for an answer that arrives as a tool call, [ForTool] asks for
// the call.
const ReplyOnlyJSON = "Reply with only the corrected JSON value, nothing else."

// JSON are a JSON answer's words.
var JSON = Words{
	Parse:      "Stage: json-parse — the answer must be exactly one JSON value, with no text, markdown fences or second value around it.\n",
	Validate:   "Stage: schema-validate — the answer is JSON but does not match the JSON Schema.\n",
	Validators: "Stage: schema-validate — the answer matches the JSON Schema, but checks of its content failed.\n",
	Reply:      ReplyOnlyJSON,
}

// Stage is which stage line a message says.
type Stage uint8

// The stage lines.
const (
	Validate   Stage = iota // the schema (Words.Validate)
	Parse                   // json-parse (Words.Parse)
	Validators              // the validators (Words.Validators)
	Degenerate              // a degenerate answer, whatever the kind
	NoAnswer                // no answer came, only thinking, whatever the kind
)

// An Issue is a pointer and a message, as a message quotes them.
type Issue struct{ Path, Message string }

// A Message is what a corrective message says.
type Message struct {
	Attempt, MaxAttempts int
	// Truncated: the answer was truncated at the output limit; Stopped:
	// the bytes read before an early verdict stopped it, -1 when none
	// did.
	Truncated bool
	Stopped   int
	// InThinking: Stopped counts bytes of the reply's thinking, stopped
	// before any answer.
	InThinking bool
	// InReasoning: no answer came, and the reasoning held one.
	InReasoning bool
	Stage       Stage
	Repaired    string // what the repairs applied did, in our words; "" for none
	Words       *Words // nil: JSON's
	Issues      []Issue
}

// String is the message's text.
func (m Message) String() string {
	var b strings.Builder
	w := m.Words
	if w == nil {
		w = &JSON
	}
	if m.Stage == NoAnswer {
		// Nothing was written to fix: the message asks for the answer,
		// and quotes nothing.
		switch {
		case m.Truncated:
			b.WriteString("Your previous reply reached the output length limit while you were still thinking, before its answer began.\n")
		case m.InReasoning:
			b.WriteString("Your previous reply put its answer in its reasoning, and its text was empty.\n")
		default:
			b.WriteString("Your previous reply held no answer.\n")
		}
		if m.InReasoning && !m.Truncated {
			fmt.Fprintf(&b, "This was attempt %d of %d. After thinking, give the answer in the reply's text, not in the reasoning.\n", m.Attempt, m.MaxAttempts)
		} else {
			fmt.Fprintf(&b, "This was attempt %d of %d. Think briefly, then give the answer.\n", m.Attempt, m.MaxAttempts)
		}
		b.WriteString(w.Reply)
		if w.After != "" {
			b.WriteString("\n")
			b.WriteString(strings.TrimRight(w.After, "\n"))
		}
		return strings.TrimRight(b.String(), "\n") // words with no reply: in no form
	}
	switch {
	case m.Stopped >= 0 && m.InThinking:
		fmt.Fprintf(&b, "We stopped reading your previous reply after the first %d bytes of its thinking, before any answer: the thinking had degenerated into blank space or a repetition that does not end. Think briefly, then give the answer.\n", m.Stopped)
	case m.Stopped >= 0 && m.Stage == Degenerate:
		fmt.Fprintf(&b, "We stopped reading your previous answer after its first %d bytes: it had degenerated into whitespace or a repetition that does not end, so the rest was not read.\n", m.Stopped)
	case m.Stopped >= 0:
		fmt.Fprintf(&b, "We stopped reading your previous answer after its first %d bytes: at that point it could no longer satisfy the required output format, so the rest was not read.\n", m.Stopped)
	}
	if m.Truncated {
		b.WriteString("Your previous answer was truncated at the output length limit before it was complete. " +
			"Give a shorter answer that fits: keep every required field, keep text values brief, leave out optional detail.\n")
	}
	fmt.Fprintf(&b, "Your previous answer did not satisfy the required output format. This was attempt %d of %d.\n", m.Attempt, m.MaxAttempts)
	switch m.Stage {
	case Degenerate:
		b.WriteString("Stage: degenerate — write the answer once, compactly, with no run of blank space and no part repeated over and over.\n")
	case Parse:
		b.WriteString(w.Parse)
	case Validators:
		b.WriteString(w.Validators)
	default:
		b.WriteString(w.Validate)
	}
	if m.Repaired != "" {
		fmt.Fprintf(&b, "Before judging it we mended its form (%s); the issues are those of the mended answer.\n", m.Repaired)
	}
	b.WriteString(w.Reply)
	b.WriteString("\n")
	b.WriteString(w.After)
	writeIssues(&b, m.Issues)
	return b.String()
}

// writeIssues writes issues, each pointer and message quoted as data and
// capped, the list stopping at MaxText bytes.
func writeIssues(b *strings.Builder, issues []Issue) {
	lines := make([]string, 0, len(issues))
	written := 0
	for i, is := range issues {
		line := "- at " + pointerLabel(jsonvalue.Clip(is.Path, MaxQuote)) + ": " + strconv.Quote(jsonvalue.Clip(is.Message, MaxQuote))
		if written+len(line)+1 > MaxText && i > 0 {
			break
		}
		lines = append(lines, line)
		written += len(line) + 1
	}
	switch n := len(issues); {
	case len(lines) < n:
		fmt.Fprintf(b, "The first %d of %d issues follow, each pointer and message quoted as data:\n", len(lines), n)
	case n == 1:
		b.WriteString("The issue follows, its pointer and message quoted as data:\n")
	default:
		fmt.Fprintf(b, "The %d issues follow, each pointer and message quoted as data:\n", n)
	}
	b.WriteString(strings.Join(lines, "\n"))
}

func pointerLabel(p string) string {
	if p == "" {
		return "the root (\"\")"
	}
	return strconv.Quote(p)
}

// ForTool is msg for an answer that must arrive as a call to tool: the
// instruction (reply, the message's own) asks for that call instead of
// a reply of only JSON. Without a tool msg is returned as it is. For a
// union's answer (members) in tool mode (a tool, or noCall: the reply
// made no call), it asks for a call of one member's tool, and says where
// its pointers are in the arguments.
func ForTool(msg, reply, tool string, members []string, noCall bool) string {
	if members != nil && (tool != "" || noCall) {
		return strings.Replace(msg, reply,
			"Call one of the tools "+QuoteNames(members)+", the one whose answer you give, with the corrected JSON value as its arguments, and nothing else: "+
				"an issue at \"#/<tool>/…\" is at \"#/…\" in that tool's arguments.", 1)
	}
	if tool == "" {
		return msg
	}
	return strings.Replace(msg, reply,
		"Call the tool "+strconv.Quote(jsonvalue.Clip(tool, MaxQuote))+" with the corrected JSON value as its arguments, and nothing else.", 1)
}

// QuoteNames is names quoted, separated by commas.
func QuoteNames(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	return strings.Join(quoted, ", ")
}
