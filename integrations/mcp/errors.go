package mcp

import (
	"errors"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Sentinels that say what went wrong with a tool. An *[Error] matches
// one of them, or none for a call that failed in the protocol (the
// session closed, the server answered with a JSON-RPC error), whose
// cause is the SDK's error.
var (
	// ErrSchemaRefused: the tool declares an input or output schema that
	// enforce.CompileSchema refuses, so its calls or results could not be
	// judged. [Tools] returns it; [Error.Schema] names which, and the
	// *enforce.SchemaError says why (the keyword, its location).
	ErrSchemaRefused = errors.New("mcp: schema refused")
	// ErrInputContract: the arguments of a call break the tool's input
	// schema (the *enforce.CheckError has every issue). The call was not
	// sent to the server.
	ErrInputContract = errors.New("mcp: the arguments break the tool's input schema")
	// ErrToolFailed: the server answered the call with a result marked
	// isError. The model is shown the result's content.
	ErrToolFailed = errors.New("mcp: the tool reported an error")
	// ErrOutputContract: the tool declares an output schema and its result
	// breaks it — its structuredContent fails the schema (the
	// *enforce.CheckError has every issue), or it has none, which the MCP
	// specification does not allow. The result is not shown to the model.
	ErrOutputContract = errors.New("mcp: the result breaks the tool's output schema")
	// ErrNeedsInput: the server asked for input before it would answer
	// (a multi round-trip result), which the client's own handling answers
	// unless it was disabled.
	ErrNeedsInput = errors.New("mcp: the tool asked for input")
)

// Error is the failure of one MCP tool: its schema refused by [Tools], or
// a call that gave no result the model can use. A call's Error goes back
// to the model as the tool's message ("error: " and its text), so the
// model can react, and it is what an agent.Observer's ToolEnd receives:
// the record of a result that broke its tool's contract.
type Error struct {
	// Tool is the tool's name on the server.
	Tool string
	// Schema is the refused schema, "inputSchema" or "outputSchema", as
	// MCP names them ([ErrSchemaRefused]); "" otherwise.
	Schema string
	// Result is the result the server sent, when it sent one.
	Result *mcp.CallToolResult
	// Err is the cause: an *enforce.SchemaError ([ErrSchemaRefused]), an
	// *enforce.CheckError ([ErrInputContract], and [ErrOutputContract]
	// when the result had structuredContent), the SDK's error for a protocol failure, or nil.
	Err error

	kind error // the sentinel, or nil for a protocol failure
}

func (e *Error) Error() string {
	tool := strconv.Quote(e.Tool)
	var s string
	switch e.kind {
	case ErrSchemaRefused:
		s = "mcp: tool " + tool + ": " + e.Schema + " refused"
	case ErrInputContract:
		s = "mcp: the arguments of tool " + tool + " break its input schema; the call was not sent"
	case ErrToolFailed:
		s = "mcp: tool " + tool + " reported an error"
		if e.Result != nil {
			if text := render(e.Result.Content); text != "" {
				s += ": " + text
			}
		}
		return s
	case ErrOutputContract:
		if e.Err == nil {
			return "mcp: tool " + tool + " declares an output schema but its result has no structuredContent; the result was not used"
		}
		s = "mcp: the result of tool " + tool + " breaks its output schema and was not used"
	case ErrNeedsInput:
		return "mcp: tool " + tool + " asked for input before answering, which this client does not give"
	default:
		s = "mcp: calling tool " + tool
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the sentinel and the cause, so that errors.Is and
// errors.As see both.
func (e *Error) Unwrap() []error {
	errs := make([]error, 0, 2)
	if e.kind != nil {
		errs = append(errs, e.kind)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}
