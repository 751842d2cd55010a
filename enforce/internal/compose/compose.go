package compose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/corrective"
	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// A Member is one member of a union: its name, its description (may be
// empty) and its schema's JSON (nil: none, refused).
type Member struct {
	Name, Description string
	Source            []byte
}

// An Error says why members do not compose into a union's schema.
type Error struct {
	Reason string
	Err    error // the cause, if any
}

func (e *Error) Error() string { return e.Reason }

// Union returns the JSON Schema of an answer that is one of members: an
// object with exactly one member, named for the member chosen, whose
// value keeps that member's schema, the members' definitions gathered
// into one "$defs" (renamed where two of one name differ, only those
// referred to kept). It refuses, with an *Error, fewer than two members,
// a name that is invalid or given twice, a member without a schema, and
// a member schema it cannot nest: a "$ref" other than to its own
// "$defs" or "definitions", an "$id" below its root, or a dialect
// ("$schema") other members do not share.
func Union(members []Member) ([]byte, error) {
	if len(members) < 2 {
		return nil, &Error{Reason: fmt.Sprintf("a union needs at least two members, got %d", len(members))}
	}
	var (
		props   bytes.Buffer
		defs    = map[string]json.RawMessage{}
		dialect json.RawMessage
		names   = make([]string, 0, len(members))
	)
	props.WriteByte('{')
	for i, m := range members {
		if !validMemberName(m.Name) {
			return nil, &Error{Reason: fmt.Sprintf("union member %d: name %q is not 1 to 64 of [a-zA-Z0-9_-]", i+1, m.Name)}
		}
		for _, n := range names {
			if n == m.Name {
				return nil, &Error{Reason: fmt.Sprintf("union member %q is given twice", m.Name)}
			}
		}
		if m.Source == nil {
			return nil, &Error{Reason: fmt.Sprintf("union member %q has no schema", m.Name)}
		}
		body, d, err := nestMember(m, defs)
		if err != nil {
			return nil, err
		}
		if i > 0 && !bytes.Equal(d, dialect) {
			return nil, &Error{Reason: fmt.Sprintf("union member %q names the dialect %s where the others name %s", m.Name, orDraft07(d), orDraft07(dialect))}
		}
		dialect = d
		if i > 0 {
			props.WriteByte(',')
		}
		key, _ := json.Marshal(m.Name)
		props.Write(key)
		props.WriteByte(':')
		props.Write(body)
		names = append(names, m.Name)
	}
	props.WriteByte('}')
	reachable(props.Bytes(), defs)

	var doc bytes.Buffer
	doc.WriteByte('{')
	if dialect != nil {
		doc.WriteString(`"$schema":`)
		doc.Write(dialect)
		doc.WriteByte(',')
	}
	doc.WriteString(`"type":"object","properties":`)
	doc.Write(props.Bytes())
	doc.WriteString(`,"additionalProperties":false,"minProperties":1,"maxProperties":1`)
	if len(defs) > 0 {
		b, _ := json.Marshal(defs) // sorted by name: the same members give the same text
		doc.WriteString(`,"$defs":`)
		doc.Write(b)
	}
	doc.WriteByte('}')
	var compact bytes.Buffer
	if err := json.Compact(&compact, doc.Bytes()); err != nil {
		return nil, &Error{Reason: "the union's schema is not JSON", Err: err}
	}
	return compact.Bytes(), nil
}

// nestMember returns m's schema as the value of its member in the union,
// with its definitions moved into defs (renamed where another member's
// of the same name differ), and the dialect it names (nil: none).
func nestMember(m Member, defs map[string]json.RawMessage) (body, dialect json.RawMessage, err error) {
	refuse := func(why string) (json.RawMessage, json.RawMessage, error) {
		return nil, nil, &Error{Reason: fmt.Sprintf("union member %q: %s", m.Name, why)}
	}
	var root map[string]json.RawMessage
	if json.Unmarshal(m.Source, &root) != nil {
		return refuse("its schema is not an object, which a union cannot nest")
	}
	dialect = root["$schema"]
	delete(root, "$schema")
	delete(root, "$id")
	own := map[string]json.RawMessage{}
	for _, key := range [...]string{"$defs", "definitions"} {
		raw, ok := root[key]
		if !ok {
			continue
		}
		delete(root, key)
		var d map[string]json.RawMessage
		if json.Unmarshal(raw, &d) != nil {
			return refuse(key + " is not an object")
		}
		for name, v := range d {
			own["#/"+key+"/"+name] = v
		}
	}
	// Each of its definitions gets a name in defs: its own, or with a
	// suffix when another member's of that name differs.
	renames := map[string]string{}
	for _, ref := range slices.Sorted(maps.Keys(own)) {
		name := pointerUnescaper.Replace(ref[strings.LastIndexByte(ref, '/')+1:])
		final := name
		for i := 2; ; i++ {
			have, taken := defs[final]
			if !taken || bytes.Equal(have, own[ref]) {
				break
			}
			final = name + "_" + strconv.Itoa(i)
		}
		renames[ref] = "#/$defs/" + jsonvalue.EscapePointer(final)
		defs[final] = nil // reserved; written below, once refs are renamed
	}
	rename := func(raw json.RawMessage) (json.RawMessage, error) {
		var tree any
		if err := json.Unmarshal(raw, &tree); err != nil {
			return nil, err
		}
		changed, err := renameRefs(tree, renames)
		if err != nil || !changed {
			return raw, err // unchanged, it keeps its members' order
		}
		return json.Marshal(tree)
	}
	for ref, v := range own {
		nv, err := rename(v)
		if err != nil {
			return refuse(err.Error())
		}
		defs[defName(renames[ref])] = nv
	}
	// A root that is only a "$ref" to a definition (as reflected) is
	// that definition, inlined, so the member reads as itself; the
	// definition stays only where something else refers to it.
	if r, ok := root["$ref"]; ok && len(root) == 1 {
		var ref string
		if json.Unmarshal(r, &ref) == nil {
			if target, ok := renames[ref]; ok {
				body = defs[defName(target)]
			}
		}
	}
	if body == nil {
		b, _ := json.Marshal(root)
		if body, err = rename(b); err != nil {
			return refuse(err.Error())
		}
	}
	if m.Description != "" {
		if body, err = withDescription(body, m.Description); err != nil {
			return refuse(err.Error())
		}
	}
	return body, dialect, nil
}

// renameRefs rewrites each "$ref" in tree by renames, and refuses one it
// has no name for, and a nested "$id", which would change what a ref
// below it means.
func renameRefs(tree any, renames map[string]string) (changed bool, err error) {
	switch v := tree.(type) {
	case map[string]any:
		for k, sub := range v {
			switch s, isString := sub.(string); {
			case k == "$ref" && isString:
				to, ok := renames[s]
				if !ok {
					return false, fmt.Errorf("its \"$ref\" %q is not to one of its own definitions, which a union cannot nest", s)
				}
				changed = changed || to != s
				v[k] = to
				continue
			case k == "$id" && isString:
				return false, fmt.Errorf("an \"$id\" below its root (%q), which a union cannot nest", s)
			}
			c, err := renameRefs(sub, renames)
			if err != nil {
				return false, err
			}
			changed = changed || c
		}
	case []any:
		for _, sub := range v {
			c, err := renameRefs(sub, renames)
			if err != nil {
				return false, err
			}
			changed = changed || c
		}
	}
	return changed, nil
}

// defName is the name in "$defs" of the definition ref points to.
func defName(ref string) string {
	return pointerUnescaper.Replace(strings.TrimPrefix(ref, "#/$defs/"))
}

var pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

// reachable keeps in defs only the definitions that props, or a
// definition kept, refers to.
func reachable(props []byte, defs map[string]json.RawMessage) {
	keep := map[string]bool{}
	work := [][]byte{props}
	for len(work) > 0 {
		text := work[len(work)-1]
		work = work[:len(work)-1]
		for name, v := range defs {
			ref, _ := json.Marshal("#/$defs/" + jsonvalue.EscapePointer(name))
			if !keep[name] && bytes.Contains(text, ref) {
				keep[name] = true
				work = append(work, v)
			}
		}
	}
	for name := range defs {
		if !keep[name] {
			delete(defs, name)
		}
	}
}

// withDescription returns the schema object body with its description
// set to d, its other members in their order.
func withDescription(body json.RawMessage, d string) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("its schema is not an object, which a description cannot be given")
	}
	out := []byte(`{"description":`)
	desc, _ := json.Marshal(d)
	out = append(out, desc...)
	for dec.More() {
		k, err := dec.Token()
		var v json.RawMessage
		if err != nil || dec.Decode(&v) != nil {
			return nil, fmt.Errorf("its schema is not JSON")
		}
		if k == "description" {
			continue
		}
		key, _ := json.Marshal(k)
		out = append(append(append(append(out, ','), key...), ':'), v...)
	}
	return append(out, '}'), nil
}

func orDraft07(d json.RawMessage) string {
	if d == nil {
		return "none (draft-07)"
	}
	return string(d)
}

// validMemberName reports whether name is 1 to 64 of [a-zA-Z0-9_-].
func validMemberName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Named returns how many of names doc, a union's answer, has as members,
// and the member it chose: its one member, when that is one of names.
func Named(doc any, names []string) (count int, chosen string) {
	obj, _ := doc.(map[string]any)
	for _, n := range names {
		if _, ok := obj[n]; ok {
			count++
			chosen = n
		}
	}
	if len(obj) != 1 {
		chosen = ""
	}
	return count, chosen
}

// Miscount is what the answer of a union of names is told, in our words,
// when it does not name exactly one member; several: it names that
// many, else none.
func Miscount(several int, names []string) string {
	choose := "give exactly one member, named for your choice: " + corrective.QuoteNames(names)
	if several > 1 {
		return fmt.Sprintf("the answer names %d members of the union: %s", several, choose)
	}
	return "the answer names no member of the union: " + choose
}

// Reword is the message, in our words, of gojsonschema's issue at path
// with keyword in a union of names' verdict on doc when the issue is of
// the count of its members (the members it names, and those to choose
// from); ok false for any other issue, whose message stays. An
// Incremental's early verdict, validated the same way, says the same.
func Reword(doc any, names []string, path, keyword string) (msg string, ok bool) {
	if path != "" || keyword != "maxProperties" && keyword != "minProperties" {
		return "", false
	}
	if named, _ := Named(doc, names); keyword == "maxProperties" && named > 1 {
		return Miscount(named, names), true
	}
	return Miscount(0, names), true
}

// Chosen returns the one member of answer, a union of names' answer
// that keeps its schema: its index in names and its value as written;
// ok false when answer has not exactly one member, one of names.
func Chosen(answer string, names []string) (i int, value string, ok bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(answer), &obj) != nil || len(obj) != 1 {
		return 0, "", false
	}
	for i, name := range names {
		if v, ok := obj[name]; ok {
			return i, string(v), true
		}
	}
	return 0, "", false
}
