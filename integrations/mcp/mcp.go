package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// dialect2020 is the $schema MCP gives a schema that declares none
// (SEP-1613); without one, enforce.CompileSchema would read draft-07.
const dialect2020 = "https://json-schema.org/draft/2020-12/schema"

// Tools lists the tools of the session, following every page of
// tools/list, as [agent.Tool] values: each one's name, description and input
// schema as the server declares them, and a Run that calls it with ctx,
// so that cancelling the run cancels the call on the server.
//
// Each tool's inputSchema, and its outputSchema when it declares one, is
// compiled here with [enforce.CompileSchema], read as JSON Schema 2020-12
// when it names no dialect, as MCP says. When a schema is refused, Tools
// returns the other tools and an error joining one *[Error] matching
// [ErrSchemaRefused] per refused tool, naming the schema; a failed listing returns no tools and the SDK's error,
// and a listing whose ctx ends returns no tools and its cause, checked
// before each tool's schema is compiled (a 10,000-link $ref chain
// compiles in about 0.1 s).
//
// Run judges the arguments against the input schema before anything is
// sent: arguments that break it are an *[Error] matching
// [ErrInputContract], and the server never sees the call. Run calls the
// tool by its name on the server, so a tool renamed (to
// keep a provider's rules for names, or to tell two servers' tools apart)
// still calls it. The tools are a snapshot: list again after the server
// says its list changed. What a call returns is described on [Error] and in the
// package doc.
func Tools(ctx context.Context, cs *mcp.ClientSession) ([]agent.Tool, error) {
	if cs == nil {
		return nil, errors.New("mcp: Tools: nil session")
	}
	var tools []agent.Tool
	var refused []error
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		if ctx.Err() != nil {
			// Compiling takes no context: the listing stops between tools.
			return nil, context.Cause(ctx)
		}
		tool, err := newTool(cs, t)
		if err != nil {
			refused = append(refused, err)
			continue
		}
		tools = append(tools, tool)
	}
	return tools, errors.Join(refused...)
}

// newTool makes t an agent.Tool that calls it through cs.
func newTool(cs *mcp.ClientSession, t *mcp.Tool) (agent.Tool, error) {
	var out *enforce.Schema
	if t.OutputSchema != nil {
		s, err := compileDeclared(t.OutputSchema)
		if err != nil {
			return agent.Tool{}, &Error{Tool: t.Name, Schema: "outputSchema", Err: err, kind: ErrSchemaRefused}
		}
		out = s
	}
	// The input schema is judged here, in its own dialect, as the output
	// schema is: the agent judges the arguments against Parameters too,
	// but reads a schema that names no dialect as draft-07, and a Run
	// called outside an agent has no judge in front of it.
	in := anyInput()
	var params json.RawMessage
	if t.InputSchema != nil {
		b, err := json.Marshal(t.InputSchema)
		if err != nil { // the SDK decoded it from JSON, so it marshals; a guard
			return agent.Tool{}, &Error{Tool: t.Name, Schema: "inputSchema", Err: err, kind: ErrSchemaRefused}
		}
		if in, err = compileDeclared(t.InputSchema); err != nil {
			return agent.Tool{}, &Error{Tool: t.Name, Schema: "inputSchema", Err: err, kind: ErrSchemaRefused}
		}
		params = b
	}
	name := t.Name
	return agent.Tool{
		Name:        name,
		Description: t.Description,
		Parameters:  params,
		Run: func(ctx context.Context, args json.RawMessage) (string, error) {
			if len(args) == 0 {
				args = json.RawMessage(`{}`) // no arguments, as the agent gives them
			}
			if err := in.Check(string(args)); err != nil {
				return "", &Error{Tool: name, Err: err, kind: ErrInputContract}
			}
			raw := &rawResult{}
			res, err := cs.CallTool(context.WithValue(ctx, rawKey{}, raw), &mcp.CallToolParams{Name: name, Arguments: args})
			raw.done()
			if err != nil {
				return "", &Error{Tool: name, Err: err}
			}
			sent, err := raw.structured()
			if err != nil && out != nil {
				return "", &Error{Tool: name, Result: res, Err: err, kind: ErrOutputContract}
			}
			return result(name, out, res, sent)
		},
	}, nil
}

// anyInput judges the arguments of a tool that declares no input schema:
// any one JSON value.
var anyInput = sync.OnceValue(func() *enforce.Schema {
	s, err := enforce.CompileSchema([]byte(`{}`))
	if err != nil {
		panic(err) // {} is a schema
	}
	return s
})

// compileDeclared compiles a declared input or output schema, as 2020-12
// when it names no dialect.
func compileDeclared(declared any) (*enforce.Schema, error) {
	if m, ok := declared.(map[string]any); ok {
		if _, named := m["$schema"]; !named {
			withDialect := make(map[string]any, len(m)+1)
			for k, v := range m {
				withDialect[k] = v
			}
			withDialect["$schema"] = dialect2020
			declared = withDialect
		}
	}
	b, err := json.Marshal(declared)
	if err != nil {
		return nil, err
	}
	return enforce.CompileSchema(b)
}

// result is what the model is shown of res, or the *Error it gets
// instead. A tool with an output schema is shown its structuredContent,
// the part that was judged: text content beside it is free to say
// anything. A tool without one is shown its content blocks, or its
// structuredContent when it has no blocks.
//
// sent is the structuredContent as the server sent it, when an exact
// transport kept it ([Transport]); else it is read as the SDK decoded it.
func result(name string, out *enforce.Schema, res *mcp.CallToolResult, sent json.RawMessage) (string, error) {
	switch {
	case res == nil: // the SDK returns a result or an error; a guard
		return "", &Error{Tool: name, Err: errors.New("the server sent no result")}
	case res.NeedsInput():
		return "", &Error{Tool: name, Result: res, kind: ErrNeedsInput}
	case res.IsError:
		return "", &Error{Tool: name, Result: res, kind: ErrToolFailed}
	}
	var structured string
	switch {
	case sent != nil && res.StructuredContent != nil:
		structured = string(sent)
	case res.StructuredContent != nil:
		// No exact transport kept the bytes: the SDK decoded them into Go
		// values (numbers as float64, objects as maps), judged as they
		// marshal back, which is exact for every number float64 holds
		// exactly and keeps the last of a duplicate key.
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return "", &Error{Tool: name, Result: res, Err: err}
		}
		structured = string(b)
	}
	if out != nil {
		if res.StructuredContent == nil {
			return "", &Error{Tool: name, Result: res, kind: ErrOutputContract}
		}
		if err := out.Check(structured); err != nil {
			return "", &Error{Tool: name, Result: res, Err: err, kind: ErrOutputContract}
		}
		return structured, nil
	}
	if len(res.Content) == 0 {
		return structured, nil
	}
	return render(res.Content), nil
}
