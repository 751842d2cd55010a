package enforce

import (
	"slices"
	"sort"
	"strings"
)

// The repeat limit ([WithRepeatLimit]) stops a run whose answers fail the
// same way in a row. At schema-validate an answer's issues say what is
// wrong with it: their pointers and keywords are its failure. At
// json-parse every failure is one issue at the root with keyword "json",
// so the failure is told by its form instead (jsonvalue.SyntaxError.Form;
// an answer not judged at all, too long or too many values to check, has
// none): prose followed by a fenced answer is progress, the same fence
// twice is not.

// signature is what makes two failures the same for the repeat limit:
// the stage, the form of a json-parse failure, the set of pointer and
// keyword pairs, and whether the answer was truncated at the output
// limit: such an answer fails for the limit, and its correction
// asks for a shorter one, so it is never the same failure as an answer
// the model ended itself.
func (e *CheckError) signature(truncated bool) string {
	pairs := make([]string, len(e.Issues))
	for i, is := range e.Issues {
		pairs[i] = is.Path + "\x01" + is.Keyword
	}
	sort.Strings(pairs)
	pairs = slices.Compact(pairs)
	sig := string(e.Stage) + "\x00" + e.form + "\x00" + strings.Join(pairs, "\x00")
	if truncated {
		sig = "truncated\x00" + sig
	}
	return sig
}
