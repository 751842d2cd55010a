package native

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// Lowering is a contract lowered for one profile: the schema to send,
// the report, and the read-back of what the lowering changed.
type Lowering struct {
	// Schema is the lowered JSON Schema, nil with [ModeNone]. A root
	// "$ref" to a definition is inlined (providers want an object at the
	// root); Name is that definition's name, or "".
	Schema json.RawMessage
	Name   string
	Report Report

	root []*shape // the root's shapes, for the read-back; nil: nothing to read back
}

// Strict reports whether the provider is asked to enforce the schema.
func (l *Lowering) Strict() bool { return l.Report.Mode == ModeStrict }

// Lower lowers contract, a JSON Schema (one [enforce.CompileSchema]
// accepts), for profile p. The lowered schema accepts no answer the
// contract refuses only where a keyword is left out (the report lists
// each) or where a null stands for a member left out ([ReadBack]); what
// it sends, the provider accepts. A contract the rules cannot express at
// all is lowered to the profile's fallback ([ModeNonStrict] or
// [ModeNone]) and the report says why. It errs only for an unknown
// profile ([ErrUnknownProfile]) or a contract that is not a schema
// ([ErrSchema]).
//
// [enforce.CompileSchema]: https://pkg.go.dev/github.com/enforcer-go/enforcer/enforce#CompileSchema
func Lower(contract []byte, p Profile) (*Lowering, error) {
	r, err := p.rules()
	if err != nil {
		return nil, err
	}
	src, err := decode(contract)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSchema, err)
	}
	switch src.(type) {
	case *object, bool:
	default:
		return nil, fmt.Errorf("%w: the root is neither an object nor a boolean", ErrSchema)
	}
	// The root's $schema, read before inlineRoot leaves it out.
	beside := false
	if o, ok := src.(*object); ok {
		d, _ := o.get("$schema")
		beside = besideRef(d, false)
	}
	name, src := inlineRoot(src)

	strict := newLowerer(r, src, true, beside)
	out, sh := strict.node(src, "", 0)
	strict.finish(out)
	out = strict.oneMember(src, out)
	// Keywords are recorded as their schemas are left; listed by where
	// they sit, each schema's in its own order.
	sort.SliceStable(strict.keywords, func(i, j int) bool { return strict.keywords[i].Pointer < strict.keywords[j].Pointer })
	if strict.bad == "" && r.never != "" {
		strict.bad = r.never
	}
	if strict.bad == "" {
		if at, ok := dangling(out); ok {
			strict.bad = at + ": a $ref into a part of the schema the provider does not take"
		}
	}
	l := &Lowering{Name: name, Report: Report{Profile: p, Mode: ModeStrict, Keywords: strict.keywords, Nullable: strict.nullable}}
	if strict.bad == "" {
		l.Schema = marshal(out)
		if len(strict.nullable) > 0 {
			strict.resolve()
			l.root = flatten(sh)
		}
		return l, nil
	}
	l.Report.Mode, l.Report.Reason, l.Report.Nullable = r.fallback, strict.bad, nil
	for i := range l.Report.Keywords {
		l.Report.Keywords[i].Enforced = false
	}
	if r.fallback == ModeNonStrict && isObjectSchema(src) {
		// A hint, but still a schema OpenAI wants an object at the root of.
		loose := newLowerer(r, src, false, beside)
		out, _ := loose.node(src, "", 0)
		if _, ok := dangling(out); !ok {
			l.Schema = marshal(out)
			return l, nil
		}
	}
	l.Report.Mode = ModeNone
	for i := range l.Report.Keywords {
		l.Report.Keywords[i].Note = ""
	}
	return l, nil
}

// dangling finds a $ref of a lowered schema that leads nowhere in it (into
// a keyword left out, or renamed), and where it sits.
func dangling(root any) (string, bool) {
	var walk func(v any, ptr string) (string, bool)
	walk = func(v any, ptr string) (string, bool) {
		switch v := v.(type) {
		case *object:
			for _, m := range v.members {
				if m.key == "$ref" {
					if s, _ := m.val.(string); lookup(root, refPointer(s)) == nil {
						return ptr, true
					}
					continue
				}
				if at, ok := walk(m.val, ptr+"/"+escape(m.key)); ok {
					return at, true
				}
			}
		case []any:
			for i, e := range v {
				if at, ok := walk(e, fmt.Sprintf("%s/%d", ptr, i)); ok {
					return at, true
				}
			}
		}
		return "", false
	}
	return walk(root, "")
}

func marshal(v any) json.RawMessage {
	var buf bytes.Buffer
	encode(&buf, v)
	return buf.Bytes()
}

// inlineRoot puts the definition a root "$ref" names at the root, as
// enforce.SchemaFor's schemas have it; the definitions stay for any other
// reference to them.
func inlineRoot(v any) (string, any) {
	root, ok := v.(*object)
	if !ok {
		return "", v
	}
	ref, _ := root.get("$ref")
	target, _ := ref.(string)
	for _, defs := range []string{"$defs", "definitions"} {
		name, ok := strings.CutPrefix(target, "#/"+defs+"/")
		if !ok || strings.Contains(name, "/") {
			continue
		}
		container, _ := root.get(defs)
		c, _ := container.(*object)
		if c == nil {
			continue
		}
		def, _ := c.get(name)
		d, ok := def.(*object)
		if !ok {
			continue
		}
		out := clone(d).(*object)
		for _, m := range root.members {
			switch m.key {
			case "$ref", "$id", "$schema":
			default:
				if _, clash := out.get(m.key); !clash {
					out.set(m.key, clone(m.val))
				}
			}
		}
		if !bytes.Contains(marshal(out), []byte(`"`+target+`"`)) {
			// Nothing else refers to it: the definition is gone with the
			// reference.
			c := clone(c).(*object)
			c.del(name)
			if len(c.members) == 0 {
				out.del(defs)
			} else {
				out.set(defs, c)
			}
		}
		return name, out
	}
	return "", v
}

// lowerer walks a contract once for a profile.
type lowerer struct {
	r      *rules
	strict bool // apply the rules that make the schema strict
	src    any
	// beside: the schema being lowered is of 2019-09 or later, where
	// $ref applies beside its siblings (the root's $schema, or the
	// nearest one above).
	beside bool

	keywords []Keyword
	nullable []string
	bad      string // the first reason the rules cannot express the contract
	shapes   map[string]*shape
	refs     []refSite

	props, enums, strs, optional, unions int
}

type refSite struct{ at, target string }

func newLowerer(r *rules, src any, strict, beside bool) *lowerer {
	return &lowerer{r: r, src: src, strict: strict, beside: beside, shapes: map[string]*shape{}}
}

// besideRef reports whether $schema v names a dialect where $ref applies
// beside its siblings (2019-09, 2020-12), or else, when v is not a
// string, was.
func besideRef(v any, was bool) bool {
	s, ok := v.(string)
	if !ok {
		return was
	}
	return strings.Contains(s, "/draft/2019-09/") || strings.Contains(s, "/draft/2020-12/")
}

// cannot records why the contract cannot be sent strict.
func (l *lowerer) cannot(ptr, format string, args ...any) {
	if l.strict && l.bad == "" {
		where := ptr
		if where == "" {
			where = "the root"
		}
		l.bad = where + ": " + fmt.Sprintf(format, args...)
	}
}

func (l *lowerer) keyword(ptr, name string, enforced bool, note string) {
	if l.strict {
		l.keywords = append(l.keywords, Keyword{Pointer: ptr, Name: name, Enforced: enforced, Note: note})
	}
}

// assertions are the keywords the report lists: what an answer is judged
// by. Keywords neither here, nor structure, nor annotations, are not JSON
// Schema's and are left out.
var assertions = setOf("type", "enum", "const", "required", "additionalProperties", "items",
	"additionalItems", "anyOf", "oneOf", "allOf", "not", "if", "then", "else", "format", "pattern",
	"minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
	"multipleOf", "minItems", "maxItems", "uniqueItems", "contains", "minContains", "maxContains",
	"minProperties", "maxProperties", "propertyNames", "patternProperties", "dependencies",
	"dependentRequired", "dependentSchemas")

// objectOnly are the keywords that apply to objects only.
var objectOnly = setOf("properties", "required", "additionalProperties", "patternProperties",
	"minProperties", "maxProperties", "propertyNames", "dependencies", "dependentRequired", "dependentSchemas")

// schemaValued are the assertions whose value is a schema, or holds
// schemas; left out, nothing below them is lowered.
var schemaValued = setOf("additionalItems", "not", "if", "then", "else", "contains",
	"propertyNames", "patternProperties", "dependencies", "dependentSchemas")

func (l *lowerer) finish(root any) {
	r := l.r
	if !l.strict {
		return
	}
	if r.objectRoot && !isObjectSchema(root) {
		l.cannot("", "the root is not an object schema")
	}
	if o, ok := root.(*object); ok && r.objectRoot && isObjectSchema(root) {
		if t, _ := o.get("type"); isList(t) {
			// ["object", "null"]: the provider wants an object at the
			// root, and an object the contract takes.
			o.set("type", "object")
		}
	}
	if r.objectRoot {
		if o, ok := root.(*object); ok {
			if _, union := o.get("anyOf"); union {
				l.cannot("", "the root is a union (anyOf)")
			}
		}
	}
	if !r.recursion && l.cyclic() {
		l.cannot("", "the schema is recursive (a $ref cycle)")
	}
	limit := func(n, max int, what string) {
		if max > 0 && n > max {
			l.cannot("", "%d %s, more than the %d the provider takes", n, what, max)
		}
	}
	limit(l.props, r.maxProps, "object properties")
	limit(l.enums, r.maxEnum, "enum values")
	limit(l.strs, r.maxStrings, "characters of names and enum values")
	limit(l.optional, r.maxOptional, "optional properties")
	limit(l.unions, r.maxUnions, "unions (anyOf or a type list)")
}

// node lowers the schema v found at ptr; depth counts the objects around
// it. It returns the lowered schema and its shape, for the read-back.
func (l *lowerer) node(v any, ptr string, depth int) (any, *shape) {
	sh := &shape{}
	l.shapes[ptr] = sh
	in, ok := v.(*object)
	if !ok {
		// A boolean schema: true is {}, which the rules below judge;
		// false accepts nothing, which no provider's subset says.
		if b, _ := v.(bool); !b {
			l.cannot(ptr, "a schema that accepts nothing (false)")
			return v, sh
		}
		in = &object{}
	}
	r := l.r
	out := &object{}
	_, hasRef := in.get("$ref")
	if d, ok := in.get("$schema"); ok {
		defer func(was bool) { l.beside = was }(l.beside)
		l.beside = besideRef(d, l.beside)
	}
	objectish := isObjectSchema(in)
	if objectish {
		depth++
		if r.maxDepth > 0 && depth > r.maxDepth {
			l.cannot(ptr, "objects nested %d deep, more than the %d the provider takes", depth, r.maxDepth)
		}
	}
	typ, _ := in.get("type")
	notObject := hasKey(in, "type") && !isObjectSchema(&object{members: []member{{"type", typ}}})
	for _, m := range in.members {
		k, val := m.key, m.val
		p := ptr + "/" + escape(k)
		switch {
		case notObject && objectOnly[k]:
			// Keywords for objects, under a type that allows none: they
			// never apply, and a provider may refuse them there.
		case k == "$ref":
			target, _ := val.(string)
			tp := refPointer(target)
			if target != "#" && !strings.HasPrefix(target, "#/") || lookup(l.src, tp) == nil {
				// Another document, an anchor, or nothing: the provider
				// resolves JSON Pointers into the schema only.
				l.cannot(ptr, "a $ref that is not a JSON Pointer into the schema")
			}
			l.refs = append(l.refs, refSite{ptr, tp})
			sh.ref, sh.hasRef = tp, true
			if rest, ok := strings.CutPrefix(target, "#/definitions/"); ok && r.defsOnly {
				target = "#/$defs/" + rest
			}
			out.set(k, target)
		case k == "definitions" && hasRef && r.refAlone:
			l.cannot(ptr, "definitions beside a $ref")
		case k == "$defs" || k == "definitions":
			defs, ok := val.(*object)
			if !ok {
				continue
			}
			if k == "definitions" && r.defsOnly {
				// Sent as $defs, the references rewritten (refTarget).
				if ptr != "" || hasKey(in, "$defs") {
					l.cannot(ptr, "definitions below the root, or beside $defs")
				}
				k = "$defs"
			}
			// The keys are distinct, as decode keeps them: appended as
			// they are, with no search.
			lowered := &object{members: make([]member, 0, len(defs.members))}
			for _, d := range defs.members {
				l.strs += len(d.key)
				dv, _ := l.node(d.val, p+"/"+escape(d.key), 0)
				lowered.members = append(lowered.members, member{d.key, dv})
			}
			out.set(k, lowered)
		case hasRef && r.refAlone && !strings.HasPrefix(k, "$"):
			if assertions[k] {
				l.keyword(ptr, k, false, "not sent beside a $ref")
			}
		case k == "properties":
			props, ok := val.(*object)
			if !ok {
				continue
			}
			sh.props = make(map[string]*shape, len(props.members))
			lowered := &object{members: make([]member, 0, len(props.members))}
			for _, pm := range props.members {
				l.props++
				l.strs += len(pm.key)
				pv, psh := l.node(pm.val, p+"/"+escape(pm.key), depth)
				sh.props[pm.key] = psh
				lowered.members = append(lowered.members, member{pm.key, pv}) // distinct keys, as above
			}
			out.set(k, lowered)
		case assertions[k]:
			if lv, keep := l.assertion(in, out, sh, typ, k, val, ptr, depth); keep {
				out.set(k, lv)
			}
		case r.annotations[k]:
			out.set(k, val)
		}
	}
	if _, ok := out.get("allOf"); ok {
		// Only a single-schema allOf is kept (see assertion), as an anyOf.
		all, _ := out.get("allOf")
		out.del("allOf")
		out.set("anyOf", all)
	}
	if hasRef && r.refFirst && l.beside {
		l.refBeside(out, ptr)
	}
	if !l.strict {
		return out, sh
	}
	if r.typed && !hasRef && !says(out) {
		l.cannot(ptr, "a schema that does not say what it accepts (no type, enum, const or anyOf)")
	}
	if objectish {
		if r.closed && !hasKey(out, "type") && !hasKey(out, "anyOf") && !hasRef {
			// Properties without a type: sent as an object, which the
			// contract takes (it takes other kinds of value too).
			out.set("type", "object")
		}
		l.object(in, out, sh, ptr)
	}
	if t, _ := out.get("type"); isList(t) || hasKey(out, "anyOf") {
		l.unions++
	}
	return out, sh
}

// refBeside keeps the force of what out checks beside its $ref, for a
// provider that reads $ref as replacing its siblings: the $ref is sent
// in an anyOf of one schema, which means the same and leaves the
// siblings beside no $ref. Beside an anyOf already there, the rules
// cannot say it (a second anyOf would need allOf, which these providers
// lack).
func (l *lowerer) refBeside(out *object, ptr string) {
	ref, ok := out.get("$ref")
	if !ok {
		return
	}
	asserts := false
	for _, m := range out.members {
		if m.key != "$ref" && !strings.HasPrefix(m.key, "$") && !l.r.annotations[m.key] {
			asserts = true
		}
	}
	if !asserts {
		return
	}
	if hasKey(out, "anyOf") {
		l.cannot(ptr, "a $ref beside anyOf and other keywords, which the provider reads as the $ref alone")
		return
	}
	out.del("$ref")
	out.set("anyOf", []any{&object{members: []member{{"$ref", ref}}}})
}

// says reports whether a lowered schema restricts what it accepts the way
// a typed provider needs.
func says(o *object) bool {
	for _, k := range []string{"type", "enum", "const", "anyOf"} {
		if hasKey(o, k) {
			return true
		}
	}
	return false
}

func hasKey(o *object, k string) bool { _, ok := o.get(k); return ok }

func isList(v any) bool { _, ok := v.([]any); return ok }

// isObjectSchema reports whether a schema describes objects: its type
// says so, or it has properties.
func isObjectSchema(v any) bool {
	o, ok := v.(*object)
	if !ok {
		return false
	}
	switch t, _ := o.get("type"); t := t.(type) {
	case string:
		return t == "object"
	case []any:
		for _, e := range t {
			if e == "object" {
				return true
			}
		}
		return false
	}
	return hasKey(o, "properties") || hasKey(o, "additionalProperties")
}

// assertion lowers keyword k of in (at ptr), reporting it; keep says
// whether it is sent, as the returned value.
func (l *lowerer) assertion(in, out *object, sh *shape, typ any, k string, val any, ptr string, depth int) (any, bool) {
	r := l.r
	p := ptr + "/" + escape(k)
	if !r.keep[k] && k != "allOf" {
		if k == "patternProperties" && r.closed {
			l.cannot(ptr, "patternProperties (members the schema allows by name pattern)")
		}
		l.keyword(ptr, k, false, "")
		return nil, false
	}
	switch k {
	case "type":
		l.keyword(ptr, k, true, "")
		return val, true
	case "enum":
		vals, _ := val.([]any)
		for _, e := range vals {
			if !r.enumOK(e) {
				l.keyword(ptr, k, false, "a value of a kind the provider does not take")
				return nil, false
			}
			l.countString(e)
		}
		l.enums += len(vals)
		l.keyword(ptr, k, true, "")
		return val, true
	case "const":
		l.countString(val)
		if r.constAsEnum {
			if !r.enumOK(val) || hasKey(in, "enum") {
				l.keyword(ptr, k, false, "")
				return nil, false
			}
			l.keyword(ptr, k, true, "sent as a one-value enum")
			out.set("enum", []any{val})
			return nil, false
		}
		if !r.enumOK(val) {
			l.keyword(ptr, k, false, "a value of a kind the provider does not take")
			return nil, false
		}
		l.keyword(ptr, k, true, "")
		return val, true
	case "format":
		f, _ := val.(string)
		if r.formats != nil && !r.formats[f] {
			l.keyword(ptr, k, false, fmt.Sprintf("format %q is not one the provider takes", f))
			return nil, false
		}
		l.keyword(ptr, k, true, "")
		return val, true
	case "pattern":
		s, _ := val.(string)
		if r.simpleRegex && !simpleRegex(s) {
			l.keyword(ptr, k, false, "backreferences, lookaround or \\b")
			return nil, false
		}
		l.keyword(ptr, k, true, "")
		return val, true
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		if r.intBounds && typ != "integer" {
			l.keyword(ptr, k, false, "bounds only on integers")
			return nil, false
		}
		if _, isNum := val.(json.Number); !isNum {
			// draft-04's boolean exclusiveMinimum: judged here.
			l.keyword(ptr, k, false, "")
			return nil, false
		}
		l.keyword(ptr, k, true, "")
		return val, true
	case "minItems":
		n, _ := val.(json.Number)
		if r.minItemsCap > 0 {
			if i, err := n.Int64(); err == nil && i > int64(r.minItemsCap) {
				l.keyword(ptr, k, false, fmt.Sprintf("sent as minItems %d", r.minItemsCap))
				return json.Number(fmt.Sprint(r.minItemsCap)), true
			}
		}
		l.keyword(ptr, k, true, "")
		return val, true
	case "required":
		l.keyword(ptr, k, true, "")
		return val, true
	case "additionalProperties":
		switch b := val.(type) {
		case bool:
			if r.closed && b {
				l.keyword(ptr, k, true, "sent as false")
				return false, true
			}
			l.keyword(ptr, k, true, "")
			return val, true
		}
		if r.closed {
			l.cannot(ptr, "additionalProperties as a schema (a map)")
		}
		lv, _ := l.node(val, p, depth)
		l.keyword(ptr, k, true, "")
		return lv, true
	case "items":
		if list, ok := val.([]any); ok {
			if r.typed {
				l.cannot(ptr, "items as a list (a tuple)")
			}
			_ = list
			l.keyword(ptr, k, false, "a tuple")
			return nil, false
		}
		lv, ish := l.node(val, p, depth)
		sh.items = ish
		l.keyword(ptr, k, true, "")
		return lv, true
	case "anyOf", "oneOf", "allOf":
		list, _ := val.([]any)
		if k == "allOf" && len(list) != 1 {
			l.keyword(ptr, k, false, "")
			return nil, false
		}
		if k != "anyOf" && hasKey(in, "anyOf") {
			l.keyword(ptr, k, false, "beside an anyOf")
			return nil, false
		}
		lowered := make([]any, len(list))
		for i, b := range list {
			bv, bsh := l.node(b, fmt.Sprintf("%s/%d", p, i), depth)
			lowered[i] = bv
			sh.alts = append(sh.alts, bsh)
		}
		switch {
		case k == "oneOf" && r.oneOfAsAnyOf:
			l.keyword(ptr, k, false, "sent as anyOf: exclusivity judged here")
			out.set("anyOf", lowered)
			return nil, false
		case k == "allOf":
			l.keyword(ptr, k, true, "sent as anyOf of one schema")
		default:
			l.keyword(ptr, k, true, "")
		}
		return lowered, true
	}
	if schemaValued[k] {
		// A kept keyword with schemas below it; no profile keeps one today.
		l.keyword(ptr, k, true, "")
		return clone(val), true
	}
	l.keyword(ptr, k, true, "")
	return val, true
}

func (l *lowerer) countString(v any) {
	if s, ok := v.(string); ok {
		l.strs += len(s)
	}
}

// object applies the rules for objects to the lowered out of in.
func (l *lowerer) object(in, out *object, sh *shape, ptr string) {
	r := l.r
	pv, _ := out.get("properties")
	props, _ := pv.(*object)
	required := map[string]bool{}
	var names []any
	if rv, ok := out.get("required"); ok {
		list, _ := rv.([]any)
		for _, n := range list {
			s, _ := n.(string)
			required[s] = true
		}
	}
	if props != nil {
		for _, m := range props.members {
			names = append(names, m.key)
		}
	}
	if r.closed {
		switch ap, ok := out.get("additionalProperties"); {
		case ok && ap == false:
		case props == nil || len(props.members) == 0:
			if !ok || ap == true {
				l.cannot(ptr, "an object with no properties (any members)")
			}
		default:
			out.set("additionalProperties", false)
		}
		for n := range required {
			if props == nil || !hasKey(props, n) {
				l.cannot(ptr, "required member %q is not among the properties", n)
			}
		}
	}
	if props == nil {
		return
	}
	for _, m := range props.members {
		if required[m.key] {
			continue
		}
		if !r.requireAll {
			l.optional++
			continue
		}
		if acceptsNull(l.src, m.val, 0) {
			// The contract takes a null here itself: the model writes
			// null for "absent", and it is judged as null.
			continue
		}
		props.set(m.key, nullable(m.val))
		p := ptr + "/properties/" + escape(m.key)
		l.nullable = append(l.nullable, p)
		if sh.nullable == nil {
			sh.nullable = map[string]bool{}
		}
		sh.nullable[m.key] = true
	}
	if r.requireAll && len(names) > 0 {
		out.set("required", names)
	}
}

// nullable makes a lowered schema also accept null.
func nullable(v any) any {
	o, ok := v.(*object)
	if !ok {
		return v
	}
	t, hasType := o.get("type")
	_, hasRef := o.get("$ref")
	if hasType && !hasRef && !hasKey(o, "anyOf") && !hasKey(o, "const") {
		o = clone(o).(*object)
		switch t := t.(type) {
		case string:
			o.set("type", []any{t, "null"})
		case []any:
			o.set("type", append(append([]any{}, t...), "null"))
		}
		if e, ok := o.get("enum"); ok {
			list, _ := e.([]any)
			o.set("enum", append(append([]any{}, list...), nil))
		}
		return o
	}
	null := &object{members: []member{{"type", "null"}}}
	return &object{members: []member{{"anyOf", []any{v, null}}}}
}

// acceptsNull reports whether schema v of the contract src accepts null.
func acceptsNull(src, v any, depth int) bool {
	if depth > 32 {
		return false
	}
	switch v := v.(type) {
	case bool:
		return v
	case *object:
		if ref, ok := v.get("$ref"); ok {
			s, _ := ref.(string)
			return acceptsNull(src, lookup(src, refPointer(s)), depth+1)
		}
		if t, ok := v.get("type"); ok {
			switch t := t.(type) {
			case string:
				if t != "null" {
					return false
				}
			case []any:
				found := false
				for _, e := range t {
					found = found || e == "null"
				}
				if !found {
					return false
				}
			}
		}
		if e, ok := v.get("enum"); ok {
			list, _ := e.([]any)
			found := false
			for _, x := range list {
				found = found || x == nil
			}
			if !found {
				return false
			}
		}
		if c, ok := v.get("const"); ok && c != nil {
			return false
		}
		for _, k := range []string{"anyOf", "oneOf"} {
			if b, ok := v.get(k); ok {
				list, _ := b.([]any)
				some := false
				for _, x := range list {
					some = some || acceptsNull(src, x, depth+1)
				}
				if !some {
					return false
				}
			}
		}
		if b, ok := v.get("allOf"); ok {
			list, _ := b.([]any)
			for _, x := range list {
				if !acceptsNull(src, x, depth+1) {
					return false
				}
			}
		}
		if n, ok := v.get("not"); ok && acceptsNull(src, n, depth+1) {
			return false
		}
		return true
	}
	return false
}

// refPointer is the JSON Pointer a local "$ref" names.
func refPointer(ref string) string {
	frag := strings.TrimPrefix(ref, "#")
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	return frag
}

// lookup finds the value at a JSON Pointer in v.
func lookup(v any, ptr string) any {
	if ptr == "" {
		return v
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil
	}
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := v.(type) {
		case *object:
			v, _ = c.get(tok)
		case []any:
			var i int
			if _, err := fmt.Sscan(tok, &i); err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// cyclic reports whether a $ref leads, through other $refs, back into
// itself.
func (l *lowerer) cyclic() bool {
	within := func(at, target string) bool {
		return target == "" || at == target || strings.HasPrefix(at, target+"/")
	}
	state := make([]int, len(l.refs)) // 0 unseen, 1 on the path, 2 done
	var visit func(i int) bool
	visit = func(i int) bool {
		state[i] = 1
		for j, s := range l.refs {
			if !within(s.at, l.refs[i].target) {
				continue
			}
			if state[j] == 1 || (state[j] == 0 && visit(j)) {
				return true
			}
		}
		state[i] = 2
		return false
	}
	for i := range l.refs {
		if state[i] == 0 && visit(i) {
			return true
		}
	}
	return false
}

// lookaround, backreferences and word boundaries: what a provider's
// pattern subset leaves out. Go's regexp (and so CompileSchema) refuses
// the first two already; \b it takes.
var unsupportedRegex = regexp.MustCompile(`\(\?[=!<]|\\[1-9bBk]`)

func simpleRegex(s string) bool { return !unsupportedRegex.MatchString(s) }
