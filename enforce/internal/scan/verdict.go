package scan

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/engine"
	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// validateClosed asks the validators of the value that just closed at
// depth d, s[start:end], and gives the first one's issues as the verdict.
// Nothing after a closed value can change it, so an issue found on it is
// the one the validator finds at the answer's end.
func (st *Scanner) validateClosed(d, start, end int) bool {
	if !st.validating || st.verdict != nil {
		return false
	}
	ptr := st.pointer(d)
	if err := st.host.Closed(ptr, st.buf.String()[start:end]); err != nil {
		st.verdict, st.doomed = err, ptr
		return true
	}
	return false
}

// Doomed is the pointer of the value a validator's verdict was given on
// as it closed (Host.Closed); "" for none.
func (st *Scanner) Doomed() string { return st.doomed }

// duplicate gives the verdict on an item that just closed equal to an
// item before it, in an array whose subschema its path decides and says
// uniqueItems: from then on no completion keeps the items unique.
func (st *Scanner) duplicate() bool {
	d := len(st.stack)
	if d == 0 || !st.inc || st.verdict != nil {
		return false
	}
	f := &st.stack[d-1]
	if f.obj || f.c == nil || !f.c.Unique {
		return false
	}
	item := &st.docs[len(st.docs)-1]
	item.v = st.built(item.v)
	key, ok := engine.EqKey(item.v)
	if !ok {
		return false // gojsonschema cannot compare it: Check decides
	}
	if _, dup := f.uniq[key]; !dup {
		if f.uniq == nil {
			f.uniq = map[string]struct{}{}
		}
		f.uniq[key] = struct{}{}
		return false
	}
	items := st.peekContainer(false, len(st.docs)-f.docs)
	return st.ask(d-1, items, f.n, false, "", func(path, keyword, want string) bool {
		return path == want && keyword == "uniqueItems"
	})
}

// cloneTree copies the objects and arrays of a parsed tree.
func cloneTree(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = cloneTree(e)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, e := range v {
			a[i] = cloneTree(e)
		}
		return a
	}
	return v
}

// closedScalar is closedFails for the string, number or literal v that
// just ended, where the path decides its subschema.
func (st *Scanner) closedScalar(v any) bool {
	if !st.inc {
		return false
	}
	d := len(st.stack)
	if (d == 0 && st.fast == nil) || (d > 0 && st.childSchema(d) == nil) {
		return false
	}
	return st.closedFails(d, v, 1)
}

// unlisted gives the verdict on a member name additionalProperties false
// refuses beside patternProperties, or under a subschema the plan does
// not follow (allOf, …): once the name has closed, whether a property or
// a pattern lists it is decided, whatever the member's value.
func (st *Scanner) unlisted(f *frame, name string) bool {
	c := f.c
	if !st.inc || c == nil || !c.AddlFalse || c.Lists(name) {
		return false
	}
	return st.schema(len(st.stack)-1, map[string]any{name: nil}, true, name, "additionalProperties")
}

// passesHere reports whether v, the value that just ended (a string,
// number or literal), passes the subschema its path gives it, by the
// fast path: false when that subschema is not known (see
// engine.Node.Member). Where it passes, no early verdict can come from it:
// no keyword of that subschema, the only one applying to it, reports an
// issue at its pointer.
func (st *Scanner) passesHere(v any) (ok bool) {
	if !st.inc {
		return false
	}
	var c *engine.Node
	if d := len(st.stack); d == 0 {
		c = st.fast
	} else {
		c = st.childSchema(d)
	}
	if c == nil {
		return false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return c.Check(v, nil)
}

// shapePasses is c.CheckOwn of the object or array f, which ends now,
// for a c whose own keywords need only its member names and size
// (c.ShapeOnly).
func (st *Scanner) shapePasses(c *engine.Node, f *frame) bool {
	return c.ShapePasses(f.obj, f.n, func(name string) bool { return st.has(f, name) })
}

// verified records whether the value that just ended passed the
// subschema its path gives it, in its container or as the whole answer.
func (st *Scanner) verified(ok bool) {
	if d := len(st.stack); d > 0 {
		if !ok {
			st.stack[d-1].bad = true
		}
		return
	}
	st.rootOK = ok
}

// has reports whether the object f already has a member name.
func (st *Scanner) has(f *frame, name string) bool {
	if f.set != nil {
		_, ok := f.set[name]
		return ok
	}
	for _, k := range st.keys[f.keys:] {
		if k == name {
			return true
		}
	}
	return false
}

func (st *Scanner) add(f *frame, name string) {
	if f.set == nil && len(st.keys)-f.keys < 16 {
		st.keys = append(st.keys, name)
		return
	}
	if f.set == nil {
		f.set = make(map[string]struct{}, 32)
		for _, k := range st.keys[f.keys:] {
			f.set[k] = struct{}{}
		}
	}
	f.set[name] = struct{}{}
}

// scalar judges a closed string, number or literal against the plan.
func (st *Scanner) scalar(k engine.Kinds, text string) bool {
	n := st.cur
	if n == nil || !n.MayFail(k, text) {
		return false
	}
	var v any
	switch k {
	case engine.KindString:
		v = text
	case engine.KindNumber:
		v = json.Number(text)
	case engine.KindBoolean:
		v = text == "true"
	}
	return st.schema(len(st.stack), v, false, "", engine.ScalarKeywords...)
}

// Bounds on asking gojsonschema: at most maxAsks documents per Scanner,
// each with at most maxAskItems array items on the path to the value.
// Past them the Scanner gives no early schema-validate verdict.
const (
	maxAsks     = 64
	maxAskItems = 4096
)

// schema asks gojsonschema about the value v at depth d of the stack
// (with member name, for additionalProperties, the member of the object
// there) and gives the schema-validate verdict when it reports an issue
// at that pointer with one of keywords. The validator judges a document
// that holds only the path to v, so its issue is the one it reports for
// every completion (see enforce's Incremental).
func (st *Scanner) schema(d int, v any, isMember bool, member string, keywords ...string) bool {
	return st.ask(d, v, 0, isMember, member, func(path, keyword, want string) bool {
		return path == want && slices.Contains(keywords, keyword)
	})
}

// closedFails gives the verdict on a value that just closed at depth d,
// holding size values, whose subschema its path decides (the fast path's
// c is known from the path alone) and which the fast path failed: every
// issue at or below its pointer is decided, whatever keyword found it
// (required, minItems, anyOf, not, …), since nothing after the value can
// change the value or the subschemas that apply to it.
func (st *Scanner) closedFails(d int, v any, size int) bool {
	return st.ask(d, v, size, false, "", func(path, keyword, want string) bool {
		return path == want || strings.HasPrefix(path, want+"/")
	})
}

// ask validates a document that holds only the path to the value v at
// depth d (with member name: the member of the object there), of size
// values, and gives the first issue accept takes as the verdict.
func (st *Scanner) ask(d int, v any, size int, isMember bool, member string, accept func(path, keyword, want string) bool) bool {
	if st.noSchema {
		return false
	}
	// Bound the work: each ask builds and validates a document as long as
	// the arrays on the path, and a value the filter wrongly suspects may
	// come again and again.
	if st.asks++; st.asks > maxAsks {
		return false
	}
	items := size
	if a, ok := v.([]any); ok {
		items = max(items, len(a))
	}
	var ptr strings.Builder
	for _, f := range st.stack[:d] {
		if !f.obj {
			items += f.n
		}
		ptr.WriteByte('/')
		if f.obj {
			ptr.WriteString(jsonvalue.EscapePointer(f.key))
		} else {
			ptr.WriteString(strconv.Itoa(f.n - 1))
		}
	}
	if isMember {
		ptr.WriteByte('/')
		ptr.WriteString(jsonvalue.EscapePointer(member))
	}
	if items > maxAskItems || ptr.Len() > MaxPointer {
		return false // a clipped pointer could name another value's issue
	}
	doc := v
	if st.canonical {
		doc = cloneTree(v) // validate canonicalizes in place; v stays as read, for Close
	}
	for j := d - 1; j >= 0; j-- {
		f := st.stack[j]
		if f.obj {
			doc = map[string]any{f.key: doc}
		} else {
			a := make([]any, f.n)
			a[f.n-1] = doc
			doc = a
		}
	}
	want := ptr.String() // as an issue quotes it: it is not clipped
	if err := st.host.Ask(doc, func(path, keyword string) bool { return accept(path, keyword, want) }); err != nil {
		st.verdict = err
		return true
	}
	return false
}
