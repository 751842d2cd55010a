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

// Bounds on what a schema may demand (enforce documents them; the
// reasoning is here).
const (
	// MaxEnum is the most values of one enum gojsonschema is given
	// (enforce.MaxEnum). It checks an enum's values for uniqueness
	// pairwise when it compiles, so 200,000 values took minutes; in
	// pieces of MaxEnum, 200,000 compile in about 0.5 s.
	MaxEnum = 1000

	// MaxSchemaExpansion is the most subschemas one value of an answer
	// may be checked against (enforce.MaxSchemaExpansion). The validator
	// checks a value once for every branch of the schema that reaches
	// it: a 2 KB schema whose 22 levels each refer twice to the next
	// checks a 10-byte answer against millions of subschemas (seconds and
	// gigabytes), and recursion that reaches itself again by two branches
	// for one value, as {"items": {"allOf": [{"$ref": "#"}, {"$ref":
	// "#"}]}} does, checks a value nested d deep 2^d times: an 80-byte
	// answer 40 deep would take days.
	//
	// For the values inside the answer, the audit follows every way of
	// nesting that leads to different subschemas (each member name the
	// schema's properties list, any other member, each tuple position,
	// any later item), taking a member no properties name to match every
	// one of the patternProperties beside it. Where some value nested
	// deep enough would be checked against more, or the ways to nest are
	// too many to follow (a quarter of this many subschemas counted),
	// enforce counts each answer's checks along the answer itself: real
	// answers are shallow where such a schema's worst case is deep.
	//
	// enforce.MaxCheckWork bounds the work for a whole answer, whose many
	// values multiply it: a schema that checks each item of an array
	// against 65,534 subschemas, within this bound, took about 0.1 s an
	// item, more as failures pile up (200 items: 52 s), so a 4 MiB answer
	// of two million items would take hours; with MaxCheckWork such a
	// schema judges at most 151 items (17 s on a busy two-core machine).
	// Contracts SchemaFor reflects check a value against at most 2
	// subschemas, and hand-written ones seldom more than a few, so their
	// answers up to enforce.MaxAnswerBytes (at most about two million
	// values) stay within it.
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
