// Package engine is enforce's schema engine: it audits a JSON Schema
// document of any dialect (draft-04 to 2020-12) into a draft-04/06/07
// tree gojsonschema checks correctly, or refuses it ([Error]); compiles
// the fast path's evaluator ([Node]) and the stream's early-verdict plan
// ([Plan]); checks formats and ECMA-262 patterns; and compiles the tree
// with gojsonschema ([Checker]), the judge that writes every issue. What
// each keyword is, per dialect, is the table in keywords.go. It knows
// nothing of answers' stages or the ledger: enforce writes those.
package engine

import "fmt"

// Bounds on what a schema may demand (enforce documents them).
const (
	// MaxEnum is the most values of one enum gojsonschema is given
	// (enforce.MaxEnum).
	MaxEnum = 1000
	// MaxSchemaExpansion is the most subschemas one value of an answer
	// may be checked against (enforce.MaxSchemaExpansion).
	MaxSchemaExpansion = 100_000
)

// Error is a schema the engine refuses: the offending keyword ("" when
// the schema as a whole is at fault), the JSON Pointer of its subschema,
// and why.
type Error struct {
	Keyword, Location, Reason string
	Err                       error // the underlying error, if any
}

func (e *Error) Error() string {
	return fmt.Sprintf("schema refused: keyword %q at %q: %s", e.Keyword, "#"+e.Location, e.Reason)
}

// Unwrap returns e.Err.
func (e *Error) Unwrap() error { return e.Err }

// IgnoredKeyword is a keyword a subschema uses where its dialect does not
// define it (enforce.IgnoredKeyword).
type IgnoredKeyword struct {
	Keyword  string
	Location string // JSON Pointer of the subschema holding it
	Dialect  string // that subschema's dialect: "draft-07", "2020-12", …
}
