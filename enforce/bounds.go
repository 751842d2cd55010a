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

	// MaxEnum is the most values of one enum gojsonschema is given: a
	// longer enum is checked in pieces of MaxEnum values, any of which
	// the value must be in (the same, compiled in linear time). An answer
	// that fails such an enum is told so by anyOf.
	MaxEnum = 1000

	// MaxSchemaExpansion is the most subschemas one value of an answer may
	// be checked against, with every $ref followed. A schema that checks
	// the answer itself against more is refused. Where the audit cannot
	// bound the values nested inside (recursion that fans out), the
	// schema is accepted and Check counts each answer's checks along the
	// answer itself before any evaluator runs: an answer with a value past
	// this, or past MaxCheckWork in all, fails json-parse, and
	// [Schema.Stream] gives no early verdicts (Close judges).
	MaxSchemaExpansion = 100_000

	// MaxCheckWork is the most subschema checks Check lets one answer
	// demand: its values times the most subschemas the audit found one
	// value checked against, plus its member names times the most for one
	// name (propertyNames), or, where recursion fans out, counted along
	// the answer itself. An answer past it fails json-parse after parsing,
	// before it is validated. Answers up to MaxAnswerBytes to contracts
	// SchemaFor reflects stay within it.
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
