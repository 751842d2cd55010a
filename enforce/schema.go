package enforce

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/enforcer-go/enforcer/enforce/internal/compose"
	"github.com/enforcer-go/enforcer/enforce/internal/engine"
	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
	"github.com/enforcer-go/enforcer/enforce/internal/reflected"
)

// Schema is a compiled output contract. It is safe for concurrent use.
type Schema struct {
	source string // the schema as given, for prompts and logs
	// judging judges answers; see parts.
	judging *parts
	// canonical: canonicalize an answer's numbers before validating (the
	// schema compares values by their JSON text).
	canonical bool
	// maxAnswer is the longest answer judged; 0 means MaxAnswerBytes.
	maxAnswer int
	// goType, set by SchemaFor and For, is the Go type every passing
	// answer must decode into: a schema cannot tell 21.0 from 21, but an
	// int field can.
	goType reflect.Type
	// typed holds For's copies of a schema without a Go type, by type,
	// so that one type always gets the same *Schema.
	typed *sync.Map
	// plan is what an Incremental checks before the answer ends, shared by
	// every copy of the schema and built on first use.
	plan *engine.Plan
	// validators are checks of an answer's content joined to the
	// contract ([Schema.WithValidators]); Judge and Ledger.Judge run them.
	validators []Validator
	// repairs mend an answer that fails as written ([Schema.WithRepairs]).
	repairs Repairs
	// ignored: see [Schema.Ignored].
	ignored []IgnoredKeyword
	// reading reads the answer of a contract of a Kind (a choice, text)
	// before it is judged; nil for a JSON Schema.
	reading reading
	// union, for a [Union], holds its members (see union.go).
	union *unionOf
}

// CompileSchema compiles a JSON Schema document in the dialect its
// $schema names (draft-07 when absent; a subschema's own $schema for it):
// draft-04 to 2020-12. A keyword the dialect does not define is ignored
// ([Schema.Ignored]); $ref resolves by $id, id and anchors to any place
// in the document. A schema gojsonschema would check wrongly is refused
// with a *[SchemaError] naming the keyword, its location and why;
// validation never reaches the network. Bytes compiled lately compile
// again at once.
func CompileSchema(jsonSchema []byte) (*Schema, error) {
	// A schema compiled before, byte for byte, is the same contract: its
	// compiled parts are shared, and the *Schema is the caller's own.
	if c := compiledCache.get(jsonSchema); c != nil {
		s := *c
		s.typed = new(sync.Map)
		return &s, nil
	}
	s, err := compileSchema(jsonSchema)
	if err != nil {
		return nil, err
	}
	c := *s
	compiledCache.put(s.source, &c) // the source's text is the key: no copy more
	return s, nil
}

// compiledCache holds the schemas compiled lately, by their bytes:
// an MCP client compiles every tool's schema at each connect, and an
// eval judges many answers of few schemas. It holds at most
// maxCompiledCached schemas of up to maxCompiledCachedBytes each, and
// starts again empty when full.
var compiledCache = bytesCache{m: map[string]*Schema{}}

const (
	maxCompiledCached      = 256
	maxCompiledCachedBytes = 64 << 10
)

type bytesCache struct {
	sync.Mutex
	m map[string]*Schema
}

func (c *bytesCache) get(b []byte) *Schema {
	if len(b) > maxCompiledCachedBytes {
		return nil
	}
	c.Lock()
	defer c.Unlock()
	return c.m[string(b)]
}

func (c *bytesCache) put(b string, s *Schema) {
	if len(b) > maxCompiledCachedBytes {
		return
	}
	c.Lock()
	defer c.Unlock()
	if len(c.m) >= maxCompiledCached {
		clear(c.m)
	}
	c.m[b] = s
}

func compileSchema(jsonSchema []byte) (*Schema, error) {
	// Details. Since 2019-09 format is an annotation. prefixItems,
	// dependentRequired and dependentSchemas are translated to their
	// exact draft-07 equivalents, as are unevaluatedProperties and
	// unevaluatedItems where no applicator beside them evaluates
	// anything. Refused: unevaluated* beside applicators, min/maxContains,
	// $dynamicRef and $recursiveRef where the dialect defines them, the
	// formats idn-hostname and idn-email where asserted, a $ref cycle
	// that consumes no input, a $ref to a missing target or outside the
	// document.
	// One copy of the bytes: the source JSON gives back, and the text the
	// parsed tree's names and strings are read from.
	src := string(jsonSchema)
	doc, err := jsonvalue.Parse(src)
	if err != nil {
		return nil, &SchemaError{Reason: "not a JSON document gojsonschema accepts", Err: err}
	}
	a, err := engine.NewAuditor(doc)
	if err != nil {
		return nil, refused(err)
	}
	tree, err := a.Audit()
	if err != nil {
		return nil, refused(err)
	}
	p := &parts{}
	if target := a.Target; engine.Compiles(tree, target) {
		// Nothing left can refuse the schema (gojsonschema surely
		// compiles it, and the rest refuses nothing): what judges waits
		// for the first answer, which a contract compiled among many
		// (a client's tools, an eval's records) may never get.
		p.make = func(p *parts) {
			p.fast = a.CompileFast(tree)
			p.gs = engine.LazyJudge(tree, target, p.fast)
			p.work = a.Work()
		}
	} else {
		p.fast = a.CompileFast(tree)
		if p.gs, err = engine.NewJudge(tree, target, p.fast); err != nil {
			return nil, &SchemaError{Reason: "not a valid " + target.String() + " schema", Err: err}
		}
		p.make = func(p *parts) { p.work = a.Work() }
	}
	return &Schema{
		source: src, judging: p, canonical: a.Compares, typed: new(sync.Map),
		plan:    &engine.Plan{Tree: tree, Draft: a.Target},
		ignored: ignored(a.Ignored),
	}, nil
}

// parts are what judges a compiled schema's answers, shared by its
// copies and made once, by make, on the first answer (see compileSchema).
type parts struct {
	once sync.Once
	make func(*parts)
	// gs is the judge of every answer the fast path does not pass.
	gs *engine.Judge
	// fast judges passing answers without gojsonschema (see
	// engine.CompileFast); nil when the schema is not in the form it compiles.
	fast *engine.Node
	// work holds an answer to MaxCheckWork subschema checks before any
	// evaluator sees it (see engine.Work).
	work engine.Work
}

// parts are s's parts, made now if they were not.
func (s *Schema) parts() *parts {
	p := s.judging
	p.once.Do(func() {
		p.make(p)
		p.make = nil // nor the audit kept alive
	})
	return p
}

// refused is the engine's refusal err as a *SchemaError, whatever the
// engine returned.
func refused(err error) error {
	if e := (*engine.Error)(nil); errors.As(err, &e) {
		return &SchemaError{Keyword: e.Keyword, Location: e.Location, Reason: e.Reason, Err: e.Err}
	}
	return &SchemaError{Reason: "the schema engine failed", Err: err}
}

func ignored(ks []engine.IgnoredKeyword) []IgnoredKeyword {
	out := make([]IgnoredKeyword, len(ks))
	for i, k := range ks {
		out[i] = IgnoredKeyword(k)
	}
	return out
}

// IgnoredKeyword is a keyword a schema uses where its dialect does not
// define it, so that, as the specification says, it is not checked:
// dependentRequired in a draft-07 schema, if in draft-06, format since
// 2019-09 (an annotation there).
type IgnoredKeyword struct {
	Keyword  string
	Location string // JSON Pointer of the subschema holding it
	Dialect  string // that subschema's dialect: "draft-07", "2020-12", …
}

// Ignored lists the keywords s does not check because their dialect does
// not define them, sorted by location: what a reader of the schema might
// believe enforced and is not. Annotations (title, default, …) and
// keywords no dialect defines are not listed.
func (s *Schema) Ignored() []IgnoredKeyword { return append([]IgnoredKeyword(nil), s.ignored...) }

// JSON returns the schema document as it was given.
func (s *Schema) JSON() []byte { return append([]byte(nil), s.source...) }

var schemaCache reflected.Cache[*Schema]

// SchemaFor returns the contract for answers that decode into T,
// reflected by invopop/jsonschema's default Reflector (every field without
// omitempty is required; unknown members are refused) and compiled once
// per type: later calls return the cached *Schema without allocating.
// Formats are asserted, so a time.Time field accepts only RFC 3339 text,
// and Check also decodes a valid answer into T: what JSON Schema allows
// but T cannot hold (21.0 or 300 for a uint8 field) fails at
// schema-validate, with the field's path.
func SchemaFor[T any]() (*Schema, error) {
	return schemaForType(reflect.TypeFor[T]())
}

func schemaForType(t reflect.Type) (*Schema, error) { return schemaCache.Get(t, reflectSchema) }

// For returns the contract for answers that must also decode into a t:
// s itself when SchemaFor reflected it from t; for a compiled schema, a
// copy (one per t) whose Check also decodes each passing answer into a t,
// failing at schema-validate where a value does not fit; a *SchemaError
// when s was reflected from another type, or is of a [Kind] (its answer
// decodes as [Schema.Decode] says).
func (s *Schema) For(t reflect.Type) (*Schema, error) {
	if s.reading != nil {
		return nil, &SchemaError{Reason: fmt.Sprintf("a %s contract's answers are read as its kind, not decoded into %v", s.Kind(), t)}
	}
	switch s.goType {
	case t:
		return s, nil
	case nil:
		if t == nil {
			return nil, &SchemaError{Reason: "For needs a Go type"}
		}
	default:
		return nil, &SchemaError{Reason: fmt.Sprintf("the contract was reflected from %v, so answers for %v would decode wrongly; use SchemaFor[%v] or a compiled schema", s.goType, t, t)}
	}
	if c, ok := s.typed.Load(t); ok {
		return c.(*Schema), nil
	}
	c := *s
	c.goType, c.typed = t, nil
	actual, _ := s.typed.LoadOrStore(t, &c)
	return actual.(*Schema), nil
}

// WithMaxAnswerBytes returns a copy of s that judges answers of up to n
// bytes, where s judges up to MaxAnswerBytes; n <= 0 means
// MaxAnswerBytes. A longer answer fails the json-parse stage before any
// of it is parsed.
func (s *Schema) WithMaxAnswerBytes(n int) *Schema {
	c := *s
	c.maxAnswer = max(n, 0)
	c.typed = new(sync.Map)
	return &c
}

// MaxAnswerBytes returns the length of the longest answer s judges: its
// own limit ([Schema.WithMaxAnswerBytes]) or the package's
// [MaxAnswerBytes]. One that arrives in pieces can be read no further
// than the byte past it: that byte decides the verdict.
func (s *Schema) MaxAnswerBytes() int { return s.maxAnswerBytes() }

func reflectSchema(t reflect.Type) (*Schema, error) {
	raw, err := reflected.Schema(t)
	if err != nil {
		re := err.(*reflected.Error)
		return nil, &SchemaError{Reason: re.Reason, Err: re.Err}
	}
	s, err := CompileSchema(raw)
	if err != nil {
		return nil, err
	}
	s.goType = t
	return s, nil
}

// Check judges answer in two stages: json-parse (exactly one JSON value,
// within [Schema.MaxAnswerBytes] and [MaxCheckWork]), then
// schema-validate (the schema, and the Go type of [Schema.For]). It
// returns nil when the answer keeps the contract, else a *[CheckError]
// with the stage and every issue. Validators need a context and run in
// [Schema.Judge] and [Ledger.Judge]. With repairs ([Schema.WithRepairs]),
// an answer that fails as written is judged as they mend it. A number
// too large for a float64 where enum, const or uniqueItems compares it
// fails, with an issue (Keyword "type") at its pointer.
func (s *Schema) Check(answer string) error {
	// At schema-validate, an evaluator compiled with the schema judges
	// first, with gojsonschema's own semantics; when it says the answer
	// passes, it passes. It also writes a failing answer's issues, in
	// gojsonschema's words, where it can write exactly its (see
	// engine.Node.Issues); gojsonschema writes the others (it compares
	// enum, const and uniqueItems values as float64s: hence the "type"
	// issue).
	_, _, err := s.judgeForm(answer)
	return err
}

// checkStrict is Check without repairs.
func (s *Schema) checkStrict(answer string) error {
	if err := s.checkSize(answer); err != nil {
		return err
	}
	if s.scanPasses(answer) {
		return s.checkTyped(answer)
	}
	doc, values, names, err := jsonvalue.ParseCounting(answer)
	if err != nil {
		return parseFailure(answer, err)
	}
	return s.checkParsed(answer, doc, values, names, false)
}

// scanPasses reports whether the compiled evaluator passes answer as it
// reads it (engine.Node.Scan), within MaxCheckWork: then Check passes it
// at schema-validate as the tree would. False: judge the tree.
func (s *Schema) scanPasses(answer string) bool {
	// Where numbers compare by their canonical text, or the bound on
	// work follows the tree's shape, the tree is needed anyway.
	p := s.parts()
	if p.fast == nil || s.canonical || p.work.Fan != nil {
		return false
	}
	ok, values, names := p.fast.Scan(answer)
	return ok && p.work.Refusal(nil, values, names, MaxCheckWork) == ""
}

// checkParsed is Check after parsing: answer parsed into doc, which holds
// values values and names member names. passed: the fast path already
// passed doc (an Incremental checks it as it is read).
func (s *Schema) checkParsed(answer string, doc any, values, names int, passed bool) error {
	if err := s.checkWork(doc, values, names); err != nil {
		return err
	}
	if !passed && !s.passesFast(doc) {
		if err := s.validate(doc); err != nil {
			if s.union != nil {
				return s.unionIssues(answer, doc, err)
			}
			return err
		}
	}
	return s.checkTyped(answer)
}

// checkTyped is Check of an answer that passed the schema: the Go type
// of [Schema.For], and a union's members.
func (s *Schema) checkTyped(answer string) error {
	if s.goType != nil {
		if err := jsonvalue.Unmarshal(answer, reflect.New(s.goType).Interface()); err != nil {
			return &CheckError{Stage: StageSchemaValidate, Issues: []Issue{decodeIssue(answer, err)}}
		}
	}
	if s.union != nil {
		return s.checkMembers(answer)
	}
	return nil
}

// checkSize refuses an answer longer than the contract judges, before
// any of it is parsed or decoded.
func (s *Schema) checkSize(answer string) *CheckError {
	if limit := s.maxAnswerBytes(); len(answer) > limit {
		return tooLong(limit)
	}
	return nil
}

// checkWork refuses a parsed answer whose values (and member names) the
// validator would check against more than MaxCheckWork subschemas in all.
func (s *Schema) checkWork(doc any, values, names int) *CheckError {
	if msg := s.parts().work.Refusal(doc, values, names, MaxCheckWork); msg != "" {
		return &CheckError{Stage: StageJSONParse, Issues: []Issue{{Keyword: "json", Message: quote(msg)}}}
	}
	return nil
}

// tooLong is the verdict on an answer longer than limit. It does not
// name the answer's length, so that an Incremental can give it at the first
// byte past the limit.
func tooLong(limit int) *CheckError {
	return &CheckError{Stage: StageJSONParse, tooLong: true, Issues: []Issue{{Keyword: "json", Message: fmt.Sprintf(
		"the answer is longer than the %d bytes the contract judges (MaxAnswerBytes, or Schema.WithMaxAnswerBytes): it was not parsed", limit)}}}
}

// parseFailure is the verdict on s, which the parser refused with err.
func parseFailure(s string, err error) *CheckError {
	ce := &CheckError{Stage: StageJSONParse, Issues: []Issue{{Keyword: "json", Message: quote(err.Error())}}}
	if se, ok := err.(*jsonvalue.SyntaxError); ok {
		ce.form = se.Form(s)
	}
	return ce
}

func (s *Schema) maxAnswerBytes() int {
	if s.maxAnswer > 0 {
		return s.maxAnswer
	}
	return MaxAnswerBytes
}

// Judge judges the final answer of a run without retries as [Ledger.Judge]
// does, as attempt 1 of 1 with no row: nil when it keeps the contract,
// else an *[OutputError] with nil Attempts, a *[ValidatorError], or
// context.Cause(ctx) when ctx ends while a validator runs. a.Withheld is
// ignored: the text is judged.
func (s *Schema) Judge(ctx context.Context, a Answer) error {
	_, err := s.Accept(ctx, a)
	return err
}

// Accept is [Schema.Judge] that also returns, when the answer passes,
// the answer to use: as the repairs mended it ([Schema.Repaired]) and
// the rules' fixes rewrote it ([Validator.Fix]).
func (s *Schema) Accept(ctx context.Context, a Answer) (string, error) {
	j := s.judgeAnswer(ctx, a, Try{Attempt: 1})
	switch {
	case j.stopped != nil:
		return "", j.stopped
	case j.failed != nil:
		return "", j.failed
	case j.ce == nil:
		return j.text, nil
	}
	oe := a.outputError(j.ce, j.brokenBy, nil)
	switch {
	case j.brokenBy != "":
	case j.ce.tripwire != "":
		oe.Reason, oe.Rule = ReasonTripwire, j.ce.tripwire
	case j.ce.beyondRepair:
		oe.Reason = ReasonBeyondRepair
	}
	return "", oe
}

// Decode decodes answer into v (a non-nil pointer) as json.Unmarshal
// does, faster. An answer that does not fit is an *OutputError at
// schema-validate at the value's pointer; one past the size bound is
// refused at json-parse unread. An answer that passed s, where s is For
// v's type, always decodes. The answer of a contract of a [Kind] decodes
// as the value it reads as: a [Choice]'s label into a string (or a type
// of kind string), a [MultiLabel]'s labels into a slice of them, a
// [Text]'s text into a string.
func (s *Schema) Decode(answer string, v any) error {
	if err := s.checkSize(answer); err != nil {
		return newOutputError(answer, err, "", nil)
	}
	text := answer
	if s.reading != nil {
		// A kind's answer decodes as the value it reads as: a label,
		// the labels, the text.
		var ok bool
		if text, ok = s.reading.value(s, answer); !ok {
			_, _, err := s.judgeForm(answer)
			ce, _ := err.(*CheckError)
			if ce == nil {
				ce = &CheckError{Stage: StageJSONParse, Issues: []Issue{{Keyword: "json", Message: "the answer reads as no value"}}}
			}
			return newOutputError(answer, ce, "", nil)
		}
	}
	if err := jsonvalue.Unmarshal(text, v); err != nil {
		return newOutputError(answer, &CheckError{Stage: StageSchemaValidate, Issues: []Issue{decodeIssue(text, err)}}, "", nil)
	}
	return nil
}

func (s *Schema) validate(doc any) error {
	var words engine.Words
	if s.union != nil {
		words = func(doc any, path, keyword string) (string, bool) {
			return compose.Reword(doc, s.union.names, path, keyword)
		}
	}
	found, err := s.parts().gs.Judge(doc, s.canonical, MaxQuote, words)
	switch {
	case err != nil:
		return &CheckError{Stage: StageSchemaValidate, Issues: []Issue{{Keyword: "validator", Message: err.Error()}}}
	case len(found) == 0:
		return nil
	}
	issues := make([]Issue, len(found))
	for i, is := range found {
		issues[i] = Issue(is)
	}
	return &CheckError{Stage: StageSchemaValidate, Issues: issues}
}

// passesFast reports whether the fast path passes doc, a tree jsonvalue.Parse
// made for this check (its numbers may be canonicalized in place). False
// means gojsonschema must judge it.
func (s *Schema) passesFast(doc any) bool {
	fast := s.parts().fast
	return fast != nil && fast.Passes(doc, s.canonical)
}
