package enforce

// valueKind is what a keyword's value holds.
type valueKind int

const (
	valueData   valueKind = iota // data, not a schema
	valueSchema                  // one schema
	valueList                    // an array of schemas
	valueMap                     // an object of schemas
	valueItems                   // items: one schema or, before 2020-12, an array of them
)

// keyword is what the audit knows of one keyword: what its value holds,
// whether its subschemas apply to the instance itself, the dialects that
// define it, and what gojsonschema does with it.
type keyword struct {
	kind    valueKind
	inPlace bool
	// from and to are the first and last dialects that define the
	// keyword (to 0: every later one). Elsewhere the keyword is ignored,
	// as the specification says of a keyword a dialect does not define.
	from, to draft
	// refused says why gojsonschema cannot check the keyword (it would
	// ignore it); translated: translate.go rewrites it to an exact
	// draft-07 equivalent instead.
	refused    string
	translated bool
	// container: its subschemas are reached only by $ref (definitions).
	container bool
}

// defines reports whether the keyword is part of dialect d.
func (k keyword) defines(d draft) bool { return d >= k.from && (k.to == 0 || d <= k.to) }

// keywords is the one table of the keywords that assert or apply
// subschemas: what their values hold, the dialects that define them, and
// those gojsonschema cannot check. The audited schema keeps only these
// (and only where its dialect defines them): annotations (title,
// default, examples, …) and unknown keywords assert nothing, and
// identifiers ($id, id, $anchor) are resolved by the audit itself.
var keywords = map[string]keyword{
	"additionalItems":      {kind: valueSchema, from: draft4, to: draft2019},
	"additionalProperties": {kind: valueSchema, from: draft4},
	"items":                {kind: valueItems, from: draft4},
	"contains":             {kind: valueSchema, from: draft6},
	"propertyNames":        {kind: valueSchema, from: draft6},
	"not":                  {kind: valueSchema, inPlace: true, from: draft4},
	"if":                   {kind: valueSchema, inPlace: true, from: draft7},
	"then":                 {kind: valueSchema, inPlace: true, from: draft7},
	"else":                 {kind: valueSchema, inPlace: true, from: draft7},
	"allOf":                {kind: valueList, inPlace: true, from: draft4},
	"anyOf":                {kind: valueList, inPlace: true, from: draft4},
	"oneOf":                {kind: valueList, inPlace: true, from: draft4},
	"prefixItems":          {kind: valueList, from: draft2020, translated: true},
	"properties":           {kind: valueMap, from: draft4},
	"patternProperties":    {kind: valueMap, from: draft4},
	// Both hold schemas for $ref in every dialect: neither asserts
	// anything, so neither is reported ignored.
	"definitions":      {kind: valueMap, from: draft4, container: true},
	"$defs":            {kind: valueMap, from: draft4, container: true},
	"dependencies":     {kind: valueMap, inPlace: true, from: draft4, to: draft7},
	"dependentSchemas": {kind: valueMap, inPlace: true, from: draft2019, translated: true},

	"dependentRequired": {from: draft2019, translated: true},
	"const":             {from: draft6},

	"unevaluatedProperties": {kind: valueSchema, from: draft2019, refused: "2019-09/2020-12 evaluation tracking"},
	"unevaluatedItems":      {kind: valueSchema, from: draft2019, refused: "2019-09/2020-12 evaluation tracking"},
	"$dynamicRef":           {from: draft2020, refused: "2020-12 dynamic references"},
	"$dynamicAnchor":        {from: draft2020, refused: "2020-12 dynamic references"},
	"$recursiveRef":         {from: draft2019, to: draft2019, refused: "2019-09 recursive references"},
	"$recursiveAnchor":      {from: draft2019, to: draft2019, refused: "2019-09 recursive references"},
	"minContains":           {from: draft2019, refused: "2019-09/2020-12 contains bounds"},
	"maxContains":           {from: draft2019, refused: "2019-09/2020-12 contains bounds"},
	"$vocabulary":           {from: draft2019, refused: "2019-09/2020-12 vocabularies"},

	// Keywords every dialect defines alike; gojsonschema applies them.
	"$ref": {from: draft4}, "type": {from: draft4}, "enum": {from: draft4}, "format": {from: draft4},
	"minimum": {from: draft4}, "maximum": {from: draft4}, "exclusiveMinimum": {from: draft4}, "exclusiveMaximum": {from: draft4},
	"multipleOf": {from: draft4}, "minLength": {from: draft4}, "maxLength": {from: draft4}, "pattern": {from: draft4},
	"minItems": {from: draft4}, "maxItems": {from: draft4}, "uniqueItems": {from: draft4},
	"minProperties": {from: draft4}, "maxProperties": {from: draft4}, "required": {from: draft4},
}

// dataKeywords hold values an answer is compared with, never schemas: a
// $ref into one would make the audit rewrite data.
var dataKeywords = map[string]bool{"enum": true, "const": true, "default": true, "examples": true}

// countKeywords take a non-negative integer; 2.0 is one.
var countKeywords = []string{"maxItems", "minItems", "maxLength", "minLength", "maxProperties", "minProperties"}
