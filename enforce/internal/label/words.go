package label

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/corrective"
)

// describe is the labels and their descriptions in one line, for the
// object form's schema.
func (s *Set) describe() string {
	var b strings.Builder
	if s.Multi {
		b.WriteString("The labels that apply, each at most once, of: ")
	} else {
		b.WriteString("One of the labels: ")
	}
	for i, name := range s.Names {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(strconv.Quote(name))
		if s.Descs[i] != "" {
			b.WriteString(" (" + s.Descs[i] + ")")
		}
	}
	return b.String()
}

// Instructions is the contract in words for a model's prompt: the
// labels with their descriptions, and the forms the answer may take.
func (s *Set) Instructions() string {
	var b strings.Builder
	if s.Multi {
		b.WriteString("Your final answer is the labels below that apply: one or more, each at most once. " +
			`Reply with only a JSON array of them, each exactly as written here, such as ["` + s.Names[0] + `"]: no other words. ` +
			`(Answering in JSON as an object, write {"labels": [...]}.)`)
	} else {
		b.WriteString("Your final answer is exactly one of the labels below. " +
			"Reply with only the label, exactly as written here: no other words, no quotes, no punctuation. " +
			`(Answering in JSON, write {"label": "<the label>"}.)`)
	}
	b.WriteString("\n\nLabels:")
	for i, name := range s.Names {
		b.WriteString("\n- " + strconv.Quote(name))
		if s.Descs[i] != "" {
			b.WriteString(": " + s.Descs[i])
		}
	}
	return b.String()
}

// maxList caps the labels a corrective message lists.
const maxList = 2048

// Words returns the Set's words for a corrective message: its stage
// lines, its instruction, and the labels (After, capped), which follow
// the instruction before the issues.
func (s *Set) Words() corrective.Words {
	w := corrective.Words{
		Parse:      "Stage: json-parse — the answer begins as JSON (a quote, [ or {) but is not one JSON value.\n",
		Validate:   "Stage: schema-validate — the answer is not one of the labels.\n",
		Validators: "Stage: schema-validate — the answer is one of the labels, but checks of it failed.\n",
		Reply:      "Reply with only one of the labels, exactly as written, nothing else.",
	}
	if s.Multi {
		w.Validate = "Stage: schema-validate — the answer is not a set of the labels.\n"
		w.Validators = "Stage: schema-validate — the answer is a set of the labels, but checks of it failed.\n"
		w.Reply = "Reply with only a JSON array of the labels that apply, each exactly as written, nothing else."
	}
	var b strings.Builder
	b.WriteString("The labels are: ")
	for i, name := range s.Names {
		q := strconv.Quote(name)
		if i > 0 && b.Len()+len(q) > maxList {
			fmt.Fprintf(&b, ", and %d more (see the instructions)", len(s.Names)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(q)
	}
	b.WriteString(".\n")
	w.After = b.String()
	return w
}
