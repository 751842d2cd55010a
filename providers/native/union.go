package native

import "encoding/json"

// An object that takes exactly one of its properties — minProperties 1,
// maxProperties 1, no additional properties: a union's contract
// (enforce.Union) — says "exactly one" with keywords no profile takes.
// Where a profile takes a union at the root, it is sent as anyOf of
// one-member objects, which says the same in keywords the provider
// enforces; elsewhere (OpenAI, Anthropic: an object at the root) as the
// object, and only enforcer judges the count.

// oneMemberNote is the report's note on minProperties and maxProperties
// sent so.
const oneMemberNote = "sent as anyOf of one-member objects"

// oneMember returns out, the strict lowering of the root src, as anyOf
// of one-member objects when src is such an object and the profile takes
// a union at the root; else out itself.
func (l *lowerer) oneMember(src, out any) any {
	r := l.r
	in, ok := src.(*object)
	o, lowered := out.(*object)
	if !ok || !lowered || !l.strict || l.bad != "" || r.objectRoot || !r.keep["anyOf"] || !oneOfItsProperties(in) {
		return out
	}
	props, _ := o.get("properties")
	p, ok := props.(*object)
	if !ok || len(p.members) < 2 {
		return out
	}
	branches := make([]any, 0, len(p.members))
	for _, m := range p.members {
		b := &object{}
		b.set("type", "object")
		b.set("properties", &object{members: []member{m}})
		b.set("required", []any{m.key})
		b.set("additionalProperties", false)
		branches = append(branches, b)
	}
	root := &object{}
	for _, m := range o.members {
		switch {
		case m.key == "$defs" || m.key == "definitions" || r.annotations[m.key]:
			root.set(m.key, m.val)
		case m.key == "properties":
			root.set("anyOf", branches)
		}
	}
	if _, ok := dangling(root); ok {
		return out // a $ref into the properties moved: send the object
	}
	for i, k := range l.keywords {
		if k.Pointer == "" && (k.Name == "minProperties" || k.Name == "maxProperties") {
			l.keywords[i].Enforced, l.keywords[i].Note = true, oneMemberNote
		}
	}
	return root
}

// oneOfItsProperties reports whether the schema o takes exactly one of
// its properties and asserts nothing else of the object.
func oneOfItsProperties(o *object) bool {
	one := func(key string) bool {
		v, _ := o.get(key)
		n, ok := v.(json.Number)
		return ok && n == "1"
	}
	if !one("minProperties") || !one("maxProperties") {
		return false
	}
	if v, _ := o.get("additionalProperties"); v != false {
		return false
	}
	for _, m := range o.members {
		switch m.key {
		case "type":
			if m.val != "object" {
				return false
			}
		case "required":
			if list, _ := m.val.([]any); len(list) > 0 {
				return false
			}
		case "properties", "additionalProperties", "minProperties", "maxProperties", "$defs", "definitions", "$schema", "$id":
		default:
			if assertions[m.key] {
				return false
			}
		}
	}
	return true
}
