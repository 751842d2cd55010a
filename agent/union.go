package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/enforcer-go/enforcer/enforce"
)

// UnionMember is one member of a union answer ([RunUnion]): a Go type,
// its name and its description. Make one with [Member].
type UnionMember struct {
	name, description string
	goType            reflect.Type
	schema            func() (*enforce.Schema, error)
	decode            func(s *enforce.Schema, text string) (any, error)
}

// Member returns the member of a union answer whose value is a T, named
// name (1 to 64 of a-z, A-Z, 0-9, _ and -) and chosen, as description
// tells the model, when it fits. Its contract is enforce.SchemaFor[T].
func Member[T any](name, description string) UnionMember {
	return UnionMember{
		name: name, description: description, goType: reflect.TypeFor[T](),
		schema: enforce.SchemaFor[T],
		decode: func(s *enforce.Schema, text string) (any, error) {
			var v T
			err := s.Decode(text, &v)
			return v, err
		},
	}
}

// Union is the answer of [RunUnion]: the member the model chose and its
// value, a T of that member's [Member][T]. Switch on Value's type; where
// two members share a Go type, Member tells them apart.
type Union struct {
	Member string
	Value  any
}

// RunUnion runs the agent for an answer that is one of members, and
// returns the member chosen with its Go value:
//
//	u, res, err := agent.RunUnion(ctx, a, "Order A1 arrived broken.",
//		agent.Member[Refund]("refund", "money back for an order"),
//		agent.Member[Escalation]("escalation", "a person must look at it"))
//	switch v := u.Value.(type) {
//	case Refund: // …
//	case Escalation: // …
//	}
//
// The contract is [enforce.Union] of the members' schemas: the answer
// names the member it chose, {"refund": {…}}, and every issue's pointer
// inside it starts with that name. An answer naming none or several
// fails at schema-validate, and its corrective turn lists what each
// member lacks. With [WithOutputTool] each member is an output tool of
// its own, named for it, whose parameters are its schema; the answer is
// the first call of one of them, judged as {"<member>": arguments}. In
// native and prompted modes the model is sent the union's schema
// ([Request.OutputSchema]). Each row names the member ([enforce.Attempt]
// Member). [WithValidators] hold the whole answer (Validator.At
// "/refund" holds one member); [WithRepairs] apply as to any answer.
//
// Fewer than two members, an invalid or repeated name, a type SchemaFor
// cannot reflect, [WithOutputSchema] (another contract), and, in tool
// mode, a member named as a tool of [WithTools] or as the output tool
// are refused before the model is called, with an error matching
// [ErrInvalidOption]. Otherwise errors are as [Agent.Run]'s, and the
// *Result is non-nil whenever the model was called.
func RunUnion(ctx context.Context, a *Agent, input string, members ...UnionMember) (Union, *Result, error) {
	// Why a struct and not a visitor: Go has no sum types, and a type
	// switch on an interface value is how Go code reads one (go/ast,
	// json.Token); the name beside it keeps members of one type apart.
	if len(a.cfg.errs) > 0 {
		res, err := a.run(ctx, input, nil, nil)
		return Union{}, res, err
	}
	schema, err := a.unionSchema(members)
	if err != nil {
		err = fmt.Errorf("%w: RunUnion: %w", ErrInvalidOption, err)
		res := &Result{TurnID: turnID(ctx)}
		a.refused(ctx, input, res, err)
		return Union{}, res, err
	}
	res, err := a.run(ctx, input, schema, nil)
	if err != nil {
		return Union{}, res, err
	}
	name := schema.Member(res.Output)
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(res.Output), &obj); err != nil {
		return Union{}, res, err // unreachable: the answer passed the union
	}
	i := slices.IndexFunc(members, func(m UnionMember) bool { return m.name == name })
	if i < 0 {
		return Union{}, res, fmt.Errorf("agent: RunUnion: the accepted answer names no member") // unreachable: the union passed it
	}
	ms, _ := members[i].schema()
	v, err := members[i].decode(ms, string(obj[name]))
	if err != nil {
		return Union{}, res, err
	}
	return Union{Member: name, Value: v}, res, nil
}

// unionKey names a list of members: their names, descriptions and types.
type unionKey struct {
	text  string
	types string
}

// unions holds each union compiled (unionKey → *enforce.Schema), for
// every agent: the same members give the same schema.
var unions sync.Map

// unionSchema returns the contract of members, with the agent's
// validators and repairs joined, and makes its contract for requests.
func (a *Agent) unionSchema(members []UnionMember) (*enforce.Schema, error) {
	if a.cfg.schema != nil {
		return nil, fmt.Errorf("WithOutputSchema gives the agent another contract")
	}
	var key unionKey
	for _, m := range members {
		if m.schema == nil {
			return nil, fmt.Errorf("a zero UnionMember: make members with Member")
		}
		key.text += strconv.Quote(m.name) + strconv.Quote(m.description)
		key.types += fmt.Sprintf("%p,", reflect.ValueOf(m.goType).UnsafePointer())
	}
	var u *enforce.Schema
	if c, ok := unions.Load(key); ok {
		u = c.(*enforce.Schema)
	} else {
		ums := make([]enforce.UnionMember, len(members))
		for i, m := range members {
			s, err := m.schema()
			if err != nil {
				return nil, fmt.Errorf("member %q: %w", m.name, err)
			}
			ums[i] = enforce.UnionMember{Name: m.name, Description: m.description, Schema: s}
		}
		s, err := enforce.Union(ums...)
		if err != nil {
			return nil, err
		}
		c, _ := unions.LoadOrStore(key, s)
		u = c.(*enforce.Schema)
	}
	s, err := a.withValidators(u)
	if err != nil {
		return nil, err
	}
	if _, ok := a.contracts.Load(s); ok {
		return s, nil
	}
	c, err := a.unionContract(s, members)
	if err != nil {
		return nil, err
	}
	a.contracts.LoadOrStore(s, c)
	return s, nil
}

// unionContract is the contract of the union s: in tool mode
// ([WithOutputTool]) one output tool per member, else the union's schema
// with a word on choosing.
func (a *Agent) unionContract(s *enforce.Schema, members []UnionMember) (*contract, error) {
	system := a.cfg.system
	if system != "" {
		system += "\n\n"
	}
	names := s.Members()
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	choices := strings.Join(quoted, ", ")
	if a.cfg.outputTool == "" {
		js := forModel(s.JSON())
		system += "Choose one kind of final answer: " + choices + ". The answer is a JSON object with exactly one member, named for your choice, whose value is that kind's answer.\n\n" + contractPrompt(js)
		return &contract{system: system, json: slices.Clip(js)}, nil
	}
	tools := slices.Clone(a.specs)
	for _, m := range members {
		if _, dup := a.cfg.toolIndex[m.name]; dup {
			return nil, fmt.Errorf("member %q: WithTools has a tool of that name", m.name)
		}
		if m.name == a.cfg.outputTool {
			return nil, fmt.Errorf("member %q: WithOutputTool names the tool of a one-member answer so; give the member another name", m.name)
		}
		ms, _ := m.schema()
		desc := "Give the final answer as " + strconv.Quote(m.name) + ": call this tool once, with the answer as its arguments."
		if m.description != "" {
			desc = m.description + " " + desc
		}
		tools = append(tools, ToolSpec{Name: m.name, Description: desc, Parameters: slices.Clip(forModel(ms.JSON()))})
	}
	system += "Give your final answer by calling one of the tools " + choices +
		", the one that fits, with the answer as its arguments: its parameters are that answer's JSON Schema. " +
		"Call only one of them, once. Do not write the final answer as text."
	return &contract{system: system, tools: slices.Clip(tools), union: names}, nil
}

// unionAnswer finds the final answer in msg when the run's contract is a
// union in tool mode: the arguments of the reply's first call of a
// member's tool, as the union's answer {"<member>": arguments}; for a
// reply with no tool calls, its text (st.noCall). ok is false when the
// reply only calls other tools.
func (st *runState) unionAnswer(msg Message) (answer string, ok bool) {
	names := st.contract.union
	if i := slices.IndexFunc(msg.ToolCalls, func(c ToolCall) bool { return slices.Contains(names, c.Name) }); i >= 0 {
		key, _ := json.Marshal(msg.ToolCalls[i].Name)
		return "{" + string(key) + ":" + string(msg.ToolCalls[i].Arguments) + "}", true
	}
	if len(msg.ToolCalls) > 0 {
		return "", false
	}
	st.noCall = true
	return msg.Content, true
}

// unionTool is what [enforce.Answer.Tool] says of a union's answer in
// tool mode: the member tool the last reply called; "" for a reply in
// text, which the ledger corrects naming every member's tool.
func (st *runState) unionTool() string {
	if st.noCall {
		return ""
	}
	for _, c := range st.res.Messages[len(st.res.Messages)-1].ToolCalls {
		if slices.Contains(st.contract.union, c.Name) {
			return c.Name
		}
	}
	return ""
}

// isOutputCall reports whether a call of the tool name carries the final
// answer: the output tool's, or a union member's.
func (st *runState) isOutputCall(name string) bool {
	if st.contract != nil && st.contract.union != nil {
		return slices.Contains(st.contract.union, name)
	}
	return name == st.outputTool()
}
