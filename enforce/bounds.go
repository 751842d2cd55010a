package enforce

import (
	"github.com/enforcer-go/enforcer/enforce/internal/engine"
	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
	"github.com/enforcer-go/enforcer/enforce/internal/scan"
)

// Bounds on what an answer or a schema may demand. Each is named in the
// error that reports it being passed.
const (
	// MaxAnswerBytes is the default largest answer Check judges: a longer
	// one fails the json-parse stage before any of it is parsed. A Schema
	// may set its own (see [Schema.WithMaxAnswerBytes]).
	MaxAnswerBytes = 4 << 20

	// MaxDepth is how deeply arrays and objects may nest in an answer or
	// a schema. Deeper input fails the json-parse stage (or is refused as
	// a schema) instead of exhausting the stack of gojsonschema, which
	// walks it.
	MaxDepth = 1000

	// MaxEnum is the most values of one enum gojsonschema is given. It
	// checks an enum's values for uniqueness pairwise when it compiles, so
	// 200,000 values took minutes; a longer enum is checked in pieces of
	// MaxEnum values, any of which the value must be in, which means the
	// same and compiles in linear time (200,000 values in about 0.5 s).
	// An answer that fails such an enum is told so by anyOf.
	MaxEnum = 1000

	// MaxSchemaExpansion is the most subschemas one value of an answer may
	// be checked against, with every $ref followed. The validator checks a
	// value once for every branch of the schema that reaches it: a 2 KB
	// schema whose 22 levels each refer twice to the next checks a 10-byte
	// answer against millions of subschemas (seconds and gigabytes), and
	// recursion that reaches itself again by two branches for one value,
	// as {"items": {"allOf": [{"$ref": "#"}, {"$ref": "#"}]}} does, checks
	// a value nested d deep 2^d times: an 80-byte answer 40 deep would take
	// days.
	//
	// A schema that checks the answer itself against more is refused. For
	// the values inside it, the audit follows every way of nesting that
	// leads to different subschemas (each member name the schema's
	// properties list, any other member, each tuple position, any later
	// item), taking a member no properties name to match every one of the
	// patternProperties beside it. Where some value nested deep enough
	// would be checked against more, or the ways to nest are too many to
	// follow (a quarter of this many subschemas counted), the schema is
	// accepted and Check counts each answer's checks along the answer
	// itself before any evaluator runs: an answer with a value past this,
	// or past MaxCheckWork in all, fails json-parse. Real answers are
	// shallow where such a schema's worst case is deep. [Schema.Stream]
	// then gives no early verdicts; Close judges.
	//
	// MaxCheckWork bounds the work for a whole answer, whose many values
	// multiply it.
	MaxSchemaExpansion = 100_000

	// MaxCheckWork is the most subschema checks Check lets one answer
	// demand, counted as the answer's values times the most subschemas
	// the audit found one value checked against (see MaxSchemaExpansion),
	// plus its member names times the most for one name (propertyNames),
	// or, where recursion fans out, along the answer itself.
	// An answer past it fails the json-parse stage after parsing, before
	// gojsonschema sees it: a schema that checks each item of an array
	// against 65,534 subschemas, within MaxSchemaExpansion, took about
	// 0.1 s an item, more as failures pile up (200 items: 52 s), so a
	// 4 MiB answer of two million items would take hours; with this
	// bound such a schema judges at most 151 items (17 s on a busy
	// two-core machine). Contracts SchemaFor reflects check a value
	// against at most 2 subschemas, and hand-written ones seldom more than
	// a few, so their answers up to MaxAnswerBytes (at most about two
	// million values) stay within it.
	MaxCheckWork = 10_000_000

	// MaxQuote is the most bytes of answer text one issue quotes: an
	// issue's Path and its Message are each clipped to it, with a marker
	// saying so, and so are the rows, errors and corrective messages
	// built from them.
	MaxQuote = 1024

	// MaxRetries is the most output retries a run may opt into.
	MaxRetries = 10
)

// quote caps a piece of text taken from an answer, for an Issue.
func quote(s string) string { return jsonvalue.Clip(s, MaxQuote) }

// The parser, the engine and the scanner hold the same bounds; a
// difference does not compile (a negative constant overflows uint).
const (
	_ = uint(MaxDepth-jsonvalue.MaxDepth) + uint(jsonvalue.MaxDepth-MaxDepth)
	_ = uint(MaxEnum-engine.MaxEnum) + uint(engine.MaxEnum-MaxEnum)
	_ = uint(MaxSchemaExpansion-engine.MaxSchemaExpansion) + uint(engine.MaxSchemaExpansion-MaxSchemaExpansion)
	_ = uint(MaxQuote-scan.MaxPointer) + uint(scan.MaxPointer-MaxQuote)
)
