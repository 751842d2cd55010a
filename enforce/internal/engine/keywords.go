package engine

import "sort"

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
	from, to Draft
	// refused says why gojsonschema cannot check the keyword (it would
	// ignore it); translated: translate.go rewrites it to an exact
	// draft-07 equivalent instead.
	refused    string
	translated bool
	// container: its subschemas are reached only by $ref (definitions).
	container bool
	// count: its value is a non-negative integer; 2.0 is one.
	count bool
	// stream is what an Incremental's plan does with the keyword
	// (streamplan.go); a subschema using one it leaves unplanned gives no
	// early verdicts.
	stream streamRole
	// scalar: a string, number, boolean or null decides the keyword's
	// issue when it closes.
	scalar bool
}

// streamRole is what a prefix of an answer can decide about a keyword.
type streamRole int

const (
	streamUnplanned streamRole = iota
	streamChecked              // checked as the answer streams
	// streamAtEnd adds issues of its own only when the value ends (the
	// close rule); it changes nothing about the keywords checked early,
	// here or below.
	streamAtEnd
)

// defines reports whether the keyword is part of dialect d.
func (k keyword) defines(d Draft) bool { return d >= k.from && (k.to == 0 || d <= k.to) }

// keywords is the one table of the keywords that assert or apply
// subschemas: what their values hold, the dialects that define them, and
// those gojsonschema cannot check. The audited schema keeps only these
// (and only where its dialect defines them): annotations (title,
// default, examples, …) and unknown keywords assert nothing, and
// identifiers ($id, id, $anchor) are resolved by the audit itself.
var keywords = map[string]keyword{
	"additionalItems":      {kind: valueSchema, from: Draft4, to: draft2019, stream: streamAtEnd}, // without an items array, gojsonschema ignores it
	"additionalProperties": {kind: valueSchema, from: Draft4, stream: streamChecked},
	"items":                {kind: valueItems, from: Draft4, stream: streamChecked},
	"contains":             {kind: valueSchema, from: Draft6},
	"propertyNames":        {kind: valueSchema, from: Draft6},
	"not":                  {kind: valueSchema, inPlace: true, from: Draft4},
	"if":                   {kind: valueSchema, inPlace: true, from: draft7},
	"then":                 {kind: valueSchema, inPlace: true, from: draft7},
	"else":                 {kind: valueSchema, inPlace: true, from: draft7},
	"allOf":                {kind: valueList, inPlace: true, from: Draft4},
	"anyOf":                {kind: valueList, inPlace: true, from: Draft4},
	"oneOf":                {kind: valueList, inPlace: true, from: Draft4},
	"prefixItems":          {kind: valueList, from: draft2020, translated: true},
	"properties":           {kind: valueMap, from: Draft4, stream: streamChecked},
	"patternProperties":    {kind: valueMap, from: Draft4},
	// Both hold schemas for $ref in every dialect: neither asserts
	// anything, so neither is reported ignored.
	"definitions":      {kind: valueMap, from: Draft4, container: true, stream: streamAtEnd},
	"$defs":            {kind: valueMap, from: Draft4, container: true, stream: streamAtEnd},
	"dependencies":     {kind: valueMap, inPlace: true, from: Draft4, to: draft7},
	"dependentSchemas": {kind: valueMap, inPlace: true, from: draft2019, translated: true},

	"dependentRequired": {from: draft2019, translated: true},
	"const":             {from: Draft6, stream: streamChecked, scalar: true},

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
	"$ref":             {from: Draft4, stream: streamChecked}, // the plan follows it
	"type":             {from: Draft4, stream: streamChecked, scalar: true},
	"enum":             {from: Draft4, stream: streamChecked, scalar: true},
	"format":           {from: Draft4, stream: streamChecked, scalar: true},
	"minimum":          {from: Draft4, stream: streamChecked, scalar: true},
	"maximum":          {from: Draft4, stream: streamChecked, scalar: true},
	"exclusiveMinimum": {from: Draft4, stream: streamChecked, scalar: true},
	"exclusiveMaximum": {from: Draft4, stream: streamChecked, scalar: true},
	"multipleOf":       {from: Draft4, stream: streamChecked, scalar: true},
	"minLength":        {from: Draft4, count: true, stream: streamChecked, scalar: true},
	"maxLength":        {from: Draft4, count: true, stream: streamChecked, scalar: true},
	"pattern":          {from: Draft4, stream: streamChecked, scalar: true},
	"minItems":         {from: Draft4, count: true, stream: streamAtEnd},
	"maxItems":         {from: Draft4, count: true, stream: streamChecked},
	"uniqueItems":      {from: Draft4, stream: streamAtEnd},
	"minProperties":    {from: Draft4, count: true, stream: streamAtEnd},
	"maxProperties":    {from: Draft4, count: true, stream: streamAtEnd},
	"required":         {from: Draft4, stream: streamAtEnd},
}

// dataKeywords hold values an answer is compared with, never schemas: a
// $ref into one would make the audit rewrite data.
var dataKeywords = map[string]bool{"enum": true, "const": true, "default": true, "examples": true}

// ScalarKeywords are the keywords whose issue a closed scalar decides,
// and "false" (the false schema's).
var ScalarKeywords = func() []string {
	ks := []string{"false"}
	for _, k := range SortedKeys(keywords) {
		if keywords[k].scalar {
			ks = append(ks, k)
		}
	}
	return ks
}()

// countKeywords are the keywords whose value is a count, in the order
// the audit checks them: by what they bound (items, length, properties),
// max before min.
var countKeywords = func() (ks []string) {
	for _, k := range SortedKeys(keywords) {
		if keywords[k].count {
			ks = append(ks, k)
		}
	}
	sort.SliceStable(ks, func(i, j int) bool { return ks[i][3:] < ks[j][3:] })
	return ks
}()
