package enforce

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// UnionMember is one member of a [Union] contract.
type UnionMember struct {
	// Name is what the answer calls the member it chose: 1 to 64 of
	// [a-zA-Z0-9_-], so that it can also name a tool.
	Name string
	// Description tells the model when to choose the member; it may be
	// empty. It is sent as the member's description in the schema.
	Description string
	// Schema is the contract the member's value keeps. Its Go type
	// ([SchemaFor], [Schema.For]) and validators hold the member's value;
	// its repairs and answer bound are the union's own, not its.
	Schema *Schema
}

// Union returns the contract for an answer that is one of members: an
// object with exactly one member, named for the member chosen, whose
// value keeps that member's schema ({"refund": {…}}). An answer naming
// no member, or more than one, fails at schema-validate; every issue's
// pointer inside a member starts with its name ("/refund/amount"), so a
// corrective turn speaks of each member named by itself. A row of a
// union's answer names the member ([Attempt.Member]).
//
// Union refuses, with a *[SchemaError], fewer than two members, a name
// that is invalid or given twice, a nil schema, and a member schema it
// cannot nest: a "$ref" other than to its own "$defs" or "definitions",
// an "$id" below its root, or a dialect ("$schema") other members do not
// share.
func Union(members ...UnionMember) (*Schema, error) {
	// Why a wrapper object: a bare answer would have to be matched
	// against every member to learn which one it is, and may match two;
	// named, the choice is the model's, on the record, and every native
	// mode takes an object at the root.
	if len(members) < 2 {
		return nil, &SchemaError{Reason: fmt.Sprintf("a union needs at least two members, got %d", len(members))}
	}
	var (
		props   bytes.Buffer
		defs    = map[string]json.RawMessage{}
		dialect json.RawMessage
		names   = make([]unionName, 0, len(members))
	)
	props.WriteByte('{')
	for i, m := range members {
		if !validMemberName(m.Name) {
			return nil, &SchemaError{Reason: fmt.Sprintf("union member %d: name %q is not 1 to 64 of [a-zA-Z0-9_-]", i+1, m.Name)}
		}
		for _, n := range names {
			if n.name == m.Name {
				return nil, &SchemaError{Reason: fmt.Sprintf("union member %q is given twice", m.Name)}
			}
		}
		if m.Schema == nil {
			return nil, &SchemaError{Reason: fmt.Sprintf("union member %q has no schema", m.Name)}
		}
		body, d, err := nestMember(m, defs)
		if err != nil {
			return nil, err
		}
		if i > 0 && !bytes.Equal(d, dialect) {
			return nil, &SchemaError{Reason: fmt.Sprintf("union member %q names the dialect %s where the others name %s", m.Name, orDraft07(d), orDraft07(dialect))}
		}
		dialect = d
		if i > 0 {
			props.WriteByte(',')
		}
		key, _ := json.Marshal(m.Name)
		props.Write(key)
		props.WriteByte(':')
		props.Write(body)
		names = append(names, unionName{name: m.Name, schema: m.Schema})
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
		return nil, &SchemaError{Reason: "the union's schema is not JSON", Err: err}
	}
	u, err := CompileSchema(compact.Bytes())
	if err != nil {
		return nil, err
	}
	u.union = names
	for i, m := range members {
		for _, v := range m.Schema.validators {
			if v.pointed {
				v.at = "/" + jsonvalue.EscapePointer(m.Name) + v.at
			} else {
				v = v.At("/" + jsonvalue.EscapePointer(m.Name))
			}
			for _, w := range u.validators {
				if w.name == v.name {
					return nil, &SchemaError{Reason: fmt.Sprintf("union member %d (%q): validator %q is also another member's: give them distinct names", i+1, m.Name, v.name)}
				}
			}
			u.validators = append(u.validators, v)
		}
	}
	return u, nil
}

// unionName is a member of a union, as its Check needs it: the name, and
// the member's own contract.
type unionName struct {
	name   string
	schema *Schema
}

// Members returns the names of a [Union]'s members, in order; nil when s
// is not a union.
func (s *Schema) Members() []string {
	if len(s.union) == 0 {
		return nil
	}
	out := make([]string, len(s.union))
	for i, n := range s.union {
		out[i] = n.name
	}
	return out
}

// Member returns the member a union's answer names: the name of its one
// member when that is one of the union's, else "" (s is not a union, the
// answer is not a JSON object, or it names no member or several).
func (s *Schema) Member(answer string) string {
	if len(s.union) == 0 {
		return ""
	}
	doc, err := jsonvalue.Parse(answer)
	if err != nil {
		return ""
	}
	return s.memberOf(doc)
}

func (s *Schema) memberOf(doc any) string {
	obj, ok := doc.(map[string]any)
	if !ok || len(obj) != 1 {
		return ""
	}
	for _, n := range s.union {
		if _, ok := obj[n.name]; ok {
			return n.name
		}
	}
	return ""
}

// checkMembers holds the value of a union's answer, which keeps the
// schema, to its member's Go type, as [Schema.For] holds a whole answer:
// decoded from the answer's own text.
func (s *Schema) checkMembers(answer string) error {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(answer), &obj) != nil || len(obj) != 1 {
		return nil // the schema passed it: it is an object of one member
	}
	for _, n := range s.union {
		value, ok := obj[n.name]
		if !ok || n.schema.goType == nil {
			continue
		}
		if err := jsonvalue.Unmarshal(string(value), reflect.New(n.schema.goType).Interface()); err != nil {
			is := decodeIssue(string(value), err)
			is.Path = quote("/" + jsonvalue.EscapePointer(n.name) + is.Path)
			return &CheckError{Stage: StageSchemaValidate, Issues: []Issue{is}}
		}
	}
	return nil
}

// unionWords says, in a union's verdict on doc (issues, from
// gojsonschema), why the count of its members fails, in our words: the
// members it names, and those to choose from. The keyword stays; an
// Incremental's early verdict, which validates a partial answer the same
// way, says the same.
func (s *Schema) unionWords(doc any, issues []Issue) {
	obj, _ := doc.(map[string]any)
	named := 0
	for _, n := range s.union {
		if _, ok := obj[n.name]; ok {
			named++
		}
	}
	choose := "give exactly one member, named for your choice: " + quoteNames(s.Members())
	for i, is := range issues {
		switch {
		case is.Path != "":
		case is.Keyword == "maxProperties" && named > 1:
			issues[i].Message = fmt.Sprintf("the answer names %d members of the union: %s", named, choose)
		case is.Keyword == "maxProperties" || is.Keyword == "minProperties":
			issues[i].Message = "the answer names no member of the union: " + choose
		}
	}
}

// unionIssues is a union's verdict err on an answer that parsed into doc
// and names no member, with each member's issues with the answer as its
// value ("as \"refund\": …") added, so that a corrective turn shows the
// model what each choice lacks.
func (s *Schema) unionIssues(answer string, doc any, err error) error {
	ce, ok := err.(*CheckError)
	if !ok {
		return err
	}
	obj, isObject := doc.(map[string]any)
	for _, n := range s.union {
		if _, named := obj[n.name]; named {
			return ce
		}
	}
	if !isObject {
		return ce
	}
	for _, n := range s.union {
		var mce *CheckError
		if !errors.As(n.schema.Check(answer), &mce) {
			ce.Issues = append(ce.Issues, Issue{Keyword: "union", Message: fmt.Sprintf(
				"as %q: the answer keeps this member's contract: give it as the value of the member %q", n.name, n.name)})
			continue
		}
		for _, is := range mce.Issues {
			is.Message = quote("as " + strconv.Quote(n.name) + ": " + is.Message)
			ce.Issues = append(ce.Issues, is)
		}
	}
	sort.SliceStable(ce.Issues, func(i, j int) bool { return ce.Issues[i].Path < ce.Issues[j].Path })
	return ce
}

// nestMember returns m's schema as the value of its member in the union,
// with its definitions moved into defs (renamed where another member's
// of the same name differ), and the dialect it names (nil: none).
func nestMember(m UnionMember, defs map[string]json.RawMessage) (body, dialect json.RawMessage, err error) {
	refuse := func(why string) (json.RawMessage, json.RawMessage, error) {
		return nil, nil, &SchemaError{Reason: fmt.Sprintf("union member %q: %s", m.Name, why)}
	}
	var root map[string]json.RawMessage
	if json.Unmarshal(m.Schema.source, &root) != nil {
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
	for _, ref := range sortedKeys(own) {
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

// quoteNames is names quoted, separated by commas.
func quoteNames(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	return strings.Join(quoted, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
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
