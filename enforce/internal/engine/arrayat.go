package engine

import (
	"strconv"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// ArrayAt says whether a value passing n may hold an array at the JSON
// Pointer whose reference tokens are toks: "" when it may, or when n does
// not say (an applicator, a patternProperties name, a schema CompileFast
// did not compile); else why not, naming the first place the schema rules
// out: a member it has no room for, a value of other types.
//
// It refuses only what every passing value rules out, so an
// enforce.Elements it refuses could never deliver an element.
func (n *Node) ArrayAt(toks []string) string {
	at := ""
	for _, t := range toks {
		if n == nil || n.always || n.opaqueKids && n.types == 0 {
			return ""
		}
		if n.never {
			return "the schema admits no value at " + quoteAt(at)
		}
		obj, arr := n.types == 0 || n.types&KindObject != 0, n.types == 0 || n.types&KindArray != 0
		i := arrayIndex(t)
		switch {
		case !obj && !arr:
			return quoteAt(at) + " is " + kindsText(n.types)
		case !obj && i < 0:
			return quoteAt(at) + " is an array, and " + strconv.Quote(t) + " is no index"
		}
		if n.opaqueKids {
			return "" // the member's or item's subschema is not known from its name
		}
		var next *Node
		known := 0
		if obj {
			m, why := n.member(t)
			if why == "" && m == nil {
				return ""
			}
			if m != nil {
				next, known = m, known+1
			}
		}
		if arr && i >= 0 {
			m, why := n.item(i)
			if why == "" && m == nil {
				return ""
			}
			if m != nil {
				next, known = m, known+1
			}
		}
		at += "/" + jsonvalue.EscapePointer(t)
		switch known {
		case 0:
			return "the schema has no " + quoteAt(at)
		case 2:
			return "" // an object's member or an array's item: either may be
		}
		n = next
	}
	switch {
	case n == nil || n.always:
		return ""
	case n.never:
		return "the schema admits no value at " + quoteAt(at)
	case n.types != 0 && n.types&KindArray == 0:
		return quoteAt(at) + " is " + kindsText(n.types)
	}
	return ""
}

// member is Member for ArrayAt: the subschema of the member name, or
// nil with why "" when the name alone does not decide it, or nil with a
// why when no such member passes.
func (n *Node) member(name string) (*Node, string) {
	for _, pp := range n.patterns {
		if pp.re.MatchString(name) {
			return nil, ""
		}
	}
	if p, ok := n.props[name]; ok {
		return p, ""
	}
	if n.AddlFalse {
		return nil, "no such member"
	}
	if n.addl != nil {
		return n.addl, ""
	}
	return anyCnode, ""
}

// item is Item for ArrayAt, as member is Member.
func (n *Node) item(i int) (*Node, string) {
	switch {
	case n.items != nil:
		return n.items, ""
	case len(n.tuple) == 0:
		return anyCnode, ""
	case i < len(n.tuple):
		return n.tuple[i], ""
	case n.noAddl:
		return nil, "no such item"
	case n.addlItems != nil:
		return n.addlItems, ""
	}
	return anyCnode, ""
}

// arrayIndex is t as an array index (RFC 6901: "0", or digits without a
// leading zero), -1 where it is none.
func arrayIndex(t string) int {
	if t == "" || len(t) > 1 && t[0] == '0' || len(t) > 9 {
		return -1
	}
	n := 0
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return -1
		}
		n = n*10 + int(t[i]-'0')
	}
	return n
}

// quoteAt is a pointer as a message names it: the answer itself for "".
func quoteAt(ptr string) string {
	if ptr == "" {
		return "the answer"
	}
	return `"` + ptr + `"`
}

// kindsText names the types of k: "a string", "an object", "a string or
// null".
func kindsText(k Kinds) string {
	var names []string
	for _, kn := range []struct {
		k    Kinds
		name string
	}{{KindObject, "object"}, {KindArray, "array"}, {KindString, "string"}, {KindNumber, "number"}, {KindInteger, "integer"}, {KindBoolean, "boolean"}, {KindNull, "null"}} {
		if k&kn.k != 0 {
			names = append(names, kn.name)
		}
	}
	article := "a "
	if strings.IndexByte("aeiou", names[0][0]) >= 0 {
		article = "an "
	}
	return article + strings.Join(names, " or ")
}
