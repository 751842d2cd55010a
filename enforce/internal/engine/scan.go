package engine

import (
	"encoding/json"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// Scan reports whether s is exactly one JSON value, as jsonvalue.Parse
// reads it, that passes n as Passes(v, false) judges it, reading s once
// and building no tree but for the subschemas that compare or combine
// whole values. values and names count as ParseCounting counts. False
// says only "not known to pass": the caller judges s as before.
func (n *Node) Scan(s string) (ok bool, values, names int) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	sc := scanner{p: jsonvalue.Parser{S: s}}
	sc.p.SkipSpace()
	if sc.p.I == len(s) || !sc.value(n) || sc.p.Err != nil {
		return false, 0, 0
	}
	sc.p.SkipSpace()
	if sc.p.I != len(s) {
		return false, 0, 0
	}
	// The trees built below a subschema deferred their formats, as Valid
	// does: checked last.
	for _, f := range sc.e.formats {
		if !checkFormat(f.format, f.v) {
			return false, 0, 0
		}
	}
	v, nm := sc.p.Counts()
	return true, sc.values + v, sc.names + nm
}

// scanner is one Scan: the parser and what it has read besides the trees
// it built, which the parser counts itself.
type scanner struct {
	p             jsonvalue.Parser
	values, names int
	e             evaluation
}

// wholeValue reports whether n needs the value it judges as a tree:
// it compares it (enum, const, uniqueItems) or applies other subschemas
// to it or to parts not known from a name or index alone.
func (n *Node) wholeValue() bool {
	return n.enum != nil || n.constant != nil || n.Unique || n.contains != nil ||
		len(n.allOf) > 0 || len(n.anyOf) > 0 || len(n.oneOf) > 0 || n.not != nil || n.ifS != nil ||
		len(n.patterns) > 0 || n.names != nil || len(n.depNames) > 0 || len(n.depSchemas) > 0
}

// value reads the value at p.I and judges it by n as Check(v, e) does
// where v must pass.
func (sc *scanner) value(n *Node) bool {
	p := &sc.p
	if n.never || p.I >= len(p.S) {
		return false
	}
	if n.always {
		return p.Skip()
	}
	if n.wholeValue() {
		v := p.Value()
		return p.Err == nil && n.Check(v, &sc.e)
	}
	sc.values++
	switch c := p.S[p.I]; {
	case c == '{':
		return sc.object(n)
	case c == '[':
		return sc.array(n)
	case c == '"':
		str := p.Str()
		return p.Err == nil && (n.types == 0 || n.types&KindString != 0) && n.validString(str) &&
			(n.format == "" || checkFormat(n.format, str))
	case c == '-' || (c >= '0' && c <= '9'):
		text, ok := p.NumberText()
		return ok && n.validNumber(json.Number(text)) && (n.format == "" || checkFormat(n.format, json.Number(text)))
	case c == 't':
		return p.Literal("true") && (n.types == 0 || n.types&KindBoolean != 0)
	case c == 'f':
		return p.Literal("false") && (n.types == 0 || n.types&KindBoolean != 0)
	case c == 'n':
		return p.Literal("null") && (n.types == 0 || n.types&KindNull != 0)
	}
	return false
}

// object is validObject while reading: each member's value judged by the
// subschema its name alone selects (no patternProperties here).
func (sc *scanner) object(n *Node) bool {
	p := &sc.p
	if n.types != 0 && n.types&KindObject == 0 || !p.Enter() {
		return false
	}
	defer p.Leave()
	p.I++ // '{'
	var ks jsonvalue.Keys
	if !p.Empty('}') {
		for {
			k, ok := p.Member(&ks)
			if !ok {
				return false
			}
			sub, found := n.props[k]
			if !found {
				switch {
				case n.AddlFalse:
					return false
				case n.addl != nil:
					sub = n.addl
				default:
					sub = anyCnode
				}
			}
			if !sc.value(sub) {
				return false
			}
			more, ok := p.Next('}')
			if !ok {
				return false
			}
			if !more {
				break
			}
		}
	}
	if size := ks.Len(); n.minProps >= 0 && size < n.minProps || n.maxProps >= 0 && size > n.maxProps {
		return false
	}
	for _, r := range n.required {
		if !ks.Has(r) {
			return false
		}
	}
	return true
}

// array is validArray while reading (no uniqueItems or contains here).
func (sc *scanner) array(n *Node) bool {
	p := &sc.p
	if n.types != 0 && n.types&KindArray == 0 || !p.Enter() {
		return false
	}
	defer p.Leave()
	p.I++ // '['
	size := 0
	if !p.Empty(']') {
		for {
			p.SkipSpace()
			sub := anyCnode
			switch {
			case n.items != nil:
				sub = n.items
			case len(n.tuple) == 0:
			case size < len(n.tuple):
				sub = n.tuple[size]
			case n.noAddl:
				return false
			case n.addlItems != nil:
				sub = n.addlItems
			}
			if !sc.value(sub) {
				return false
			}
			size++
			more, ok := p.Next(']')
			if !ok {
				return false
			}
			if !more {
				break
			}
		}
	}
	return !(n.minItems >= 0 && size < n.minItems || n.maxItems >= 0 && size > n.maxItems)
}
