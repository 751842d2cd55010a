package enforce

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"

	"github.com/enforcer-go/enforcer/enforce/internal/compose"
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
	cm := make([]compose.Member, len(members))
	for i, m := range members {
		cm[i] = compose.Member{Name: m.Name, Description: m.Description}
		if m.Schema != nil {
			cm[i].Source = append([]byte{}, m.Schema.source...) // not nil: a schema is given
		}
	}
	doc, err := compose.Union(cm)
	if err != nil {
		var ce *compose.Error
		errors.As(err, &ce)
		return nil, &SchemaError{Reason: ce.Reason, Err: ce.Err}
	}
	u, err := CompileSchema(doc)
	if err != nil {
		return nil, err
	}
	u.union = &unionOf{names: make([]string, len(members))}
	for i, m := range members {
		u.union.names[i] = m.Name
		u.union.schemas = append(u.union.schemas, m.Schema)
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

// unionOf is a union's members, as its Check needs them: their names,
// and their own contracts.
type unionOf struct {
	names   []string
	schemas []*Schema
}

// Members returns the names of a [Union]'s members, in order; nil when s
// is not a union.
func (s *Schema) Members() []string {
	if s.union == nil {
		return nil
	}
	return slices.Clone(s.union.names)
}

// Member returns the member a union's answer names: the name of its one
// member when that is one of the union's, else "" (s is not a union, the
// answer is not a JSON object, or it names no member or several).
func (s *Schema) Member(answer string) string {
	if s.union == nil {
		return ""
	}
	doc, err := jsonvalue.Parse(answer)
	if err != nil {
		return ""
	}
	_, chosen := compose.Named(doc, s.union.names)
	return chosen
}

// checkMembers holds the value of a union's answer, which keeps the
// schema, to its member's Go type, as [Schema.For] holds a whole answer:
// decoded from the answer's own text.
func (s *Schema) checkMembers(answer string) error {
	i, value, ok := compose.Chosen(answer, s.union.names)
	if !ok || s.union.schemas[i].goType == nil {
		return nil // the schema passed it: it is an object of one member
	}
	if err := jsonvalue.Unmarshal(value, reflect.New(s.union.schemas[i].goType).Interface()); err != nil {
		is := decodeIssue(value, err)
		is.Path = quote("/" + jsonvalue.EscapePointer(s.union.names[i]) + is.Path)
		return &CheckError{Stage: StageSchemaValidate, Issues: []Issue{is}}
	}
	return nil
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
	if _, isObject := doc.(map[string]any); !isObject {
		return ce
	}
	if named, _ := compose.Named(doc, s.union.names); named > 0 {
		return ce
	}
	for i, name := range s.union.names {
		var mce *CheckError
		if !errors.As(s.union.schemas[i].Check(answer), &mce) {
			ce.Issues = append(ce.Issues, Issue{Keyword: "union", Message: fmt.Sprintf(
				"as %q: the answer keeps this member's contract: give it as the value of the member %q", name, name)})
			continue
		}
		for _, is := range mce.Issues {
			is.Message = quote("as " + strconv.Quote(name) + ": " + is.Message)
			ce.Issues = append(ce.Issues, is)
		}
	}
	sort.SliceStable(ce.Issues, func(i, j int) bool { return ce.Issues[i].Path < ce.Issues[j].Path })
	return ce
}
