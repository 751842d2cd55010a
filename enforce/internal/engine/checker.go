package engine

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
	"github.com/xeipuuv/gojsonschema"
)

// A Checker is gojsonschema compiled for an audited tree: the judge that
// decides every answer the fast path does not pass, and writes every
// issue a user sees.
type Checker struct{ gs *gojsonschema.Schema }

// Compile compiles tree, which the audit made for draft (Draft4, Draft6,
// or draft-07 for any other), with gojsonschema, which neither validates
// the schema again nor reaches the network; its error (or panic) is
// returned.
func Compile(tree any, draft Draft) (c *Checker, err error) {
	sl := gojsonschema.NewSchemaLoader()
	sl.AutoDetect = false
	sl.Validate = false
	switch draft {
	case Draft4:
		sl.Draft = gojsonschema.Draft4
	case Draft6:
		sl.Draft = gojsonschema.Draft6
	default:
		sl.Draft = gojsonschema.Draft7
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("validator panicked: %v", r)
		}
	}()
	gs, err := sl.Compile(gojsonschema.NewRawLoader(tree))
	if err != nil {
		return nil, err
	}
	return &Checker{gs}, nil
}

// An Issue is one issue gojsonschema found: the JSON Pointer of the
// value it is about (for a missing required member or a disallowed
// extra one, the member's own), the schema keyword, and gojsonschema's
// message, verbatim but for the engine's format prefix.
type Issue struct{ Path, Keyword, Message string }

// Validate returns the issues of doc, a tree as jsonvalue.Parse gives it,
// in gojsonschema's order; none when it passes. err: gojsonschema could
// not validate it. It panics where gojsonschema does (a number too large
// for a float64 where enum, const or uniqueItems compares it).
func (c *Checker) Validate(doc any) ([]Issue, error) {
	res, err := c.gs.Validate(gojsonschema.NewRawLoader(doc))
	if err != nil {
		return nil, err
	}
	if res.Valid() {
		return nil, nil
	}
	errs := res.Errors()
	issues := make([]Issue, 0, len(errs))
	for _, re := range errs {
		issues = append(issues, issueOf(re))
	}
	return issues, nil
}

// ctxSep separates gojsonschema's context path segments; a NUL cannot be
// confused with the dots that may appear in member names.
const ctxSep = "\x00"

func issueOf(re gojsonschema.ResultError) Issue {
	ptr := contextPointer(re.Context())
	switch re.Type() {
	case "required", "additional_property_not_allowed":
		if p, ok := re.Details()["property"].(string); ok {
			ptr += "/" + jsonvalue.EscapePointer(p)
		}
	}
	msg := re.Description()
	if re.Type() == "format" {
		msg = strings.ReplaceAll(msg, FormatPrefix, "")
	}
	return Issue{Path: ptr, Keyword: keywordOf(re.Type()), Message: msg}
}

func contextPointer(c *gojsonschema.JsonContext) string {
	if c == nil {
		return ""
	}
	parts := strings.Split(c.String(ctxSep), ctxSep)
	var b strings.Builder
	for _, p := range parts[1:] { // parts[0] is "(root)"
		b.WriteByte('/')
		b.WriteString(jsonvalue.EscapePointer(p))
	}
	return b.String()
}

// keywordOf maps gojsonschema's error type to the schema keyword.
func keywordOf(t string) string {
	switch t {
	case "invalid_type":
		return "type"
	case "additional_property_not_allowed":
		return "additionalProperties"
	case "number_any_of":
		return "anyOf"
	case "number_one_of":
		return "oneOf"
	case "number_all_of":
		return "allOf"
	case "number_not":
		return "not"
	case "array_min_items":
		return "minItems"
	case "array_max_items":
		return "maxItems"
	case "string_gte":
		return "minLength"
	case "string_lte":
		return "maxLength"
	case "array_min_properties":
		return "minProperties"
	case "array_max_properties":
		return "maxProperties"
	case "number_gte":
		return "minimum"
	case "number_gt":
		return "exclusiveMinimum"
	case "number_lte":
		return "maximum"
	case "number_lt":
		return "exclusiveMaximum"
	case "multiple_of":
		return "multipleOf"
	case "unique":
		return "uniqueItems"
	case "array_contains":
		return "contains"
	case "array_no_additional_items":
		return "additionalItems"
	case "condition_then":
		return "then"
	case "condition_else":
		return "else"
	case "invalid_property_name":
		return "propertyNames"
	case "missing_dependency":
		return "dependencies"
	case "does_not_match_pattern":
		return "pattern"
	case "false":
		return "false"
	}
	return t
}

// Judge is Validate as enforce's verdicts need it: doc's numbers
// canonicalized first when canonical (doc is the caller's, fresh from
// the parser), each issue's Path and Message clipped to clip bytes,
// words (when not nil) giving the message of those it says ok to, and
// the issues sorted by path, then message. When gojsonschema panics on a number too large for a
// float64 where enum, const or uniqueItems compares it, tooLarge is
// that number's pointer (ok true); its error, or a panic of any other
// cause, is err.
func (c *Checker) Judge(doc any, canonical bool, clip int, words Words) (issues []Issue, err error) {
	defer func() {
		if r := recover(); r != nil {
			// The one cause known: a number too large for a float64
			// where enum, const or uniqueItems compares values.
			issues = nil
			if ptr, ok := jsonvalue.BeyondFloat64(doc, ""); ok {
				issues = []Issue{{Path: jsonvalue.Clip(ptr, clip), Keyword: "type", Message: TooLargeNumber}}
			} else {
				err = fmt.Errorf("validator failed: %v", r)
			}
		}
	}()
	if canonical {
		doc = jsonvalue.CanonicalizeInPlace(doc)
	}
	if issues, err = c.Validate(doc); err != nil || len(issues) == 0 {
		return nil, err
	}
	return finish(issues, doc, clip, words), nil
}

// Words gives the message of an issue at path of keyword in doc, where
// it says ok (a union's members, named).
type Words func(doc any, path, keyword string) (string, bool)

// finish clips, rewords and sorts issues as Judge returns them.
func finish(issues []Issue, doc any, clip int, words Words) []Issue {
	for i, is := range issues {
		issues[i].Path, issues[i].Message = jsonvalue.Clip(is.Path, clip), jsonvalue.Clip(is.Message, clip)
		if words == nil {
			continue
		}
		if msg, ok := words(doc, issues[i].Path, is.Keyword); ok {
			issues[i].Message = msg
		}
	}
	sort.SliceStable(issues, func(i, j int) bool {
		if issues[i].Path != issues[j].Path {
			return issues[i].Path < issues[j].Path
		}
		return issues[i].Message < issues[j].Message
	})
	return issues
}

// A Judge decides the answers the fast path fails and writes their
// issues: its compiled evaluator where it writes exactly what
// gojsonschema would ([Node.Issues]), gojsonschema elsewhere, compiled
// when first needed where it surely compiles ([Compiles]).
type Judge struct {
	own *Node // nil: gojsonschema writes every issue
	// lazy builds checker on first need; nil when it was built at once.
	lazy    *sync.Once
	tree    any
	draft   Draft
	checker *Checker
	err     error
	done    atomic.Bool // lazy ran
}

// NewJudge makes the judge of tree, which the audit made for draft,
// beside own, the evaluator CompileFast made of it (nil when it made
// none). gojsonschema compiles tree now, its error (see Compile)
// returned, unless own and Compiles(tree, draft) say no answer need
// wait for it: then on the first answer own cannot judge alone.
func NewJudge(tree any, draft Draft, own *Node) (*Judge, error) {
	if own != nil && Compiles(tree, draft) {
		return LazyJudge(tree, draft, own), nil
	}
	c, err := Compile(tree, draft)
	if err != nil {
		return nil, err
	}
	return &Judge{own: own, checker: c}, nil
}

// LazyJudge is NewJudge of a tree Compiles(tree, draft) passed,
// gojsonschema compiled on the first answer own (nil: every answer)
// cannot judge alone, from a copy of tree, which readers may hold.
func LazyJudge(tree any, draft Draft, own *Node) *Judge {
	return &Judge{own: own, lazy: new(sync.Once), tree: tree, draft: draft}
}

// gojsonschema is j's Checker, compiled now if it was not.
func (j *Judge) gojsonschema() (*Checker, error) {
	if j.lazy != nil {
		j.lazy.Do(func() {
			// Compiles said it compiles; should it not, every answer
			// the evaluator cannot judge fails with this error.
			j.checker, j.err = Compile(deepCopy(j.tree), j.draft)
			j.done.Store(true)
		})
	}
	return j.checker, j.err
}

// Judge is Checker.Judge, the issues written by the evaluator where it
// can.
func (j *Judge) Judge(doc any, canonical bool, clip int, words Words) ([]Issue, error) {
	if j.own != nil {
		if canonical {
			doc = jsonvalue.CanonicalizeInPlace(doc)
		}
		if issues, ok := j.own.Issues(doc); ok {
			if len(issues) == 0 {
				return nil, nil
			}
			return finish(issues, doc, clip, words), nil
		}
	}
	c, err := j.gojsonschema()
	if err != nil {
		return nil, fmt.Errorf("validator failed: %w", err)
	}
	return c.Judge(doc, canonical, clip, words)
}

// Compiled reports whether gojsonschema is compiled for j yet.
func (j *Judge) Compiled() bool { return j.lazy == nil || j.done.Load() }

// Checker is gojsonschema compiled for j (now, if it was not): the
// judge alone, for tests that hold the evaluator's issues to its.
func (j *Judge) Checker() *Checker {
	c, _ := j.gojsonschema()
	return c
}

// Alone is j with gojsonschema writing every issue, for benchmarks.
func (j *Judge) Alone() *Judge { return &Judge{checker: j.Checker()} }

// TooLargeNumber is the message of the issue of a number gojsonschema
// cannot compare.
const TooLargeNumber = "the number is too large for a float64 (beyond about 1.8e308), so the schema's enum, const or uniqueItems cannot compare it: write a number within that range"
