// Package mcp gives an agent the tools of a Model Context Protocol server:
// [Tools] turns the tools of a client session of the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) into agent.Tools, and holds
// each tool's result to the output schema the tool declares, with this
// library's own judge.
//
// Both packages are named mcp, so one of them needs an import alias:
//
//	import (
//		"github.com/modelcontextprotocol/go-sdk/mcp"
//
//		enforcermcp "github.com/enforcer-go/enforcer/integrations/mcp"
//	)
//
//	client := mcp.NewClient(&mcp.Implementation{Name: "my-agent"}, nil)
//	cs, err := client.Connect(ctx, enforcermcp.Transport(transport), nil)
//	if err != nil {
//		return err
//	}
//	defer cs.Close()
//	tools, err := enforcermcp.Tools(ctx, cs)
//	if err != nil {
//		return err
//	}
//	a := agent.New(model, agent.WithTools(tools...))
//
// # Calls
//
// A tool's Run judges the arguments the model wrote against the tool's
// inputSchema, and sends nothing when they break it ([ErrInputContract]);
// else it calls the tool on the server with them and the run's context:
// a cancelled run cancels the call (the SDK tells the server). Under an
// agent the arguments are judged first against the tool's Parameters,
// the same inputSchema, with a row in Result.Calls. What the model is
// shown:
//
//   - a tool that declares an output schema: its structuredContent as
//     JSON, once it keeps the schema;
//   - a tool that declares none: its content blocks as text (an image or
//     a binary resource as a line that names it), or its
//     structuredContent when it has no blocks;
//   - a failure: "error: " and the text of an *[Error] — the issues of
//     arguments that break the inputSchema ([ErrInputContract]), the
//     tool's own content for a result marked isError ([ErrToolFailed]), the issues
//     of a result that breaks the schema ([ErrOutputContract]), the
//     SDK's error for a call that failed in the protocol (a closed
//     session, a JSON-RPC error).
//
// # Output contracts
//
// The MCP specification asks clients to validate a tool's structured
// result against its declared outputSchema. Here the schema, and the
// inputSchema too, is compiled by enforce.CompileSchema when the tools
// are listed (a schema that names no dialect is JSON Schema 2020-12, as
// MCP says), so one it refuses fails [Tools] with [ErrSchemaRefused]
// instead of passing unjudged; and
// each result is judged by enforce's Schema.Check. Connected through
// [Transport], a result is judged and shown as the bytes the server sent
// (a duplicate key fails, an integer past 2^53 keeps its digits); without
// it, as the SDK decoded it into float64 numbers and maps. A result that fails,
// or has no structuredContent, is not shown to the model: it gets the
// issues instead and can call again or do without.
//
// The record of a broken result is the error itself: an agent.Observer's
// ToolEnd receives it (errors.Is(err, [ErrOutputContract]), and
// errors.As for the *enforce.CheckError with every issue), as does a
// tracer built on that seam; the conversation in agent.Result.Messages
// holds what the model was told.
//
// The package lives in a module of its own so that the core module does
// not depend on the MCP SDK.
package mcp
