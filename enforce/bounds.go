package enforce

import (
	"strconv"
	"unicode/utf8"
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

	// MaxSchemaExpansion is the most subschemas a schema may demand,
	// counted two ways; a schema past either is refused.
	//
	// First, with every $ref inlined (a reference back into a subschema
	// being expanded, recursion that consumes input, counts once): a 2 KB
	// schema whose 22 levels each refer twice to the next expands to
	// millions of subschemas and took seconds and gigabytes for a 10-byte
	// answer.
	//
	// Second, at each value of an answer nested up to MaxDepth deep. The
	// validator checks a value once for every branch of the schema that
	// reaches it, so recursion that reaches itself again by two branches
	// for one value, as {"items": {"allOf": [{"$ref": "#"}, {"$ref":
	// "#"}]}} does, checks a value nested d deep 2^d times: an 80-byte
	// answer 40 deep would take days. The audit follows every way of nesting
	// that leads to different subschemas (each member name the schema's
	// properties list, any other member, each tuple position, any later
	// item) and refuses a schema that would check one value against more
	// subschemas than this. It takes a member no properties name to match
	// every one of the patternProperties beside it, so it also refuses
	// recursion through two patterns no name can match both of. When the
	// ways to nest are too many to follow one by one (ten times this many
	// subschemas counted), it counts coarsely, each subschema as often as
	// the way of nesting that reaches it most, which may refuse more.
	//
	// Both bound the work for one value; MaxCheckWork bounds it for a whole
	// answer, whose many values multiply it.
	MaxSchemaExpansion = 100_000

	// MaxCheckWork is the most subschema checks Check lets one answer
	// demand, counted as the answer's values times the most subschemas
	// the audit found one value checked against (see MaxSchemaExpansion),
	// plus its member names times the most for one name (propertyNames).
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
	// issue's Path and its Message are each cut to it, with a marker
	// saying so, and so are the rows, errors and corrective messages
	// built from them.
	MaxQuote = 1024

	// MaxRetries is the most output retries a run may opt into.
	MaxRetries = 10
)

// cut shortens s to at most n bytes on a rune boundary, followed by a
// marker that says it was cut and from what length: the same input always
// gives the same text.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…[cut: " + strconv.Itoa(i) + " of " + strconv.Itoa(len(s)) + " bytes]"
}

// quote caps a piece of text taken from an answer, for an Issue.
func quote(s string) string { return cut(s, MaxQuote) }
