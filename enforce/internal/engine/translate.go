package engine

import (
	"fmt"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// translate2020 rewrites the 2020-12 keywords that have an exact draft-07
// equivalent, after their subschemas were audited: prefixItems (with
// items) is draft-07's array items (with additionalItems);
// dependentRequired and dependentSchemas are draft-07's dependencies.
func (a *Auditor) translate2020(m, out map[string]any, loc string) error {
	if pre, ok := out["prefixItems"]; ok {
		if items, ok := out["items"]; ok {
			out["additionalItems"] = items
			a.move(loc+"/items", "/additionalItems")
		}
		out["items"] = pre
		delete(out, "prefixItems")
		a.move(loc+"/prefixItems", "/items")
	}
	deps := map[string]any{}
	if v, ok := m["dependentRequired"]; ok {
		dr, ok := v.(map[string]any)
		if !ok {
			return &Error{Keyword: "dependentRequired", Location: loc, Reason: "must be an object"}
		}
		for name, names := range dr {
			list, ok := names.([]any)
			if !ok {
				return &Error{Keyword: "dependentRequired", Location: loc, Reason: fmt.Sprintf("%q must name members in an array", name)}
			}
			seen := map[string]bool{}
			for _, n := range list {
				s, ok := n.(string)
				if !ok || seen[s] {
					return &Error{Keyword: "dependentRequired", Location: loc, Reason: fmt.Sprintf("%q must name unique members as strings", name)}
				}
				seen[s] = true
			}
			deps[name] = list
		}
	}
	if ds, ok := out["dependentSchemas"].(map[string]any); ok {
		a.move(loc+"/dependentSchemas", "/dependencies")
		for name, sub := range ds {
			if names, both := deps[name]; both {
				sub = map[string]any{"allOf": []any{map[string]any{"required": names}, sub}}
				a.move(loc+"/dependentSchemas/"+jsonvalue.EscapePointer(name), "/"+jsonvalue.EscapePointer(name)+"/allOf/1")
			}
			deps[name] = sub
		}
	}
	delete(out, "dependentRequired")
	delete(out, "dependentSchemas")
	if len(deps) > 0 {
		out["dependencies"] = deps
	}
	return nil
}

func (a *Auditor) move(from, to string) {
	if a.moved == nil {
		a.moved = map[string]string{}
	}
	a.moved[from] = to
}

// reaim aims each $ref at its target's place in the rewrite. A target
// that is itself a $ref alone is passed over for where it leads, which
// checks the same: gojsonschema follows a chain of n links by recursion n
// deep, copying its stack as it grows (a 10,000-link chain took 140 ms
// of its compile), and is given one link instead.
func (a *Auditor) reaim() {
	alone := map[string]string{} // a $ref alone's location → its target
	for _, r := range a.refNodes {
		if r.alone {
			alone[r.loc] = r.target
		}
	}
	var chain []string
	end := func(t string) string {
		// findCycle has refused a loop of $refs, so the chain ends; each
		// link is then aimed at its end, so that chains are walked once.
		chain = chain[:0]
		for next, ok := alone[t]; ok && len(chain) <= len(alone); next, ok = alone[t] {
			chain = append(chain, t)
			t = next
		}
		for _, l := range chain {
			alone[l] = t
		}
		return t
	}
	for _, r := range a.refNodes {
		r.node["$ref"] = pointerRef(a.aim(end(r.target)))
	}
}

// aim is the location in the rewrite of loc in the original document:
// the same but where a translated keyword moved.
func (a *Auditor) aim(loc string) string {
	if len(a.moved) == 0 || loc == "" {
		return loc
	}
	var orig, aimed strings.Builder
	for _, seg := range strings.Split(loc[1:], "/") {
		orig.WriteString("/" + seg)
		if to, ok := a.moved[orig.String()]; ok {
			aimed.WriteString(to)
		} else {
			aimed.WriteString("/" + seg)
		}
	}
	return aimed.String()
}
