// mcp: an agent whose tool comes from an MCP server, held to the output
// schema the tool declares. The server runs in-process over the SDK's
// in-memory transport, and its forecast tool is buggy: its first result
// breaks its own schema. The agent's tool returns that as an error the
// model sees, an observer records it, the model calls again, and the
// final answer is judged against the run's own contract.
//
// The model is scripted: no network and no keys. It is a module of its
// own because it links the MCP SDK.
//
//	go run ./examples/mcp
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	enforcermcp "github.com/enforcer-go/enforcer/integrations/mcp"
)

// Weather is the run's output contract.
type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
}

// forecastSchema is the output schema the server declares for its tool.
const forecastSchema = `{
	"type": "object",
	"properties": {"city": {"type": "string"}, "tempC": {"type": "number"}},
	"required": ["city", "tempC"]
}`

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "run failed:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	cs, err := connect(ctx, newServer())
	if err != nil {
		return err
	}
	defer cs.Close()

	// The glue: the session's tools as agent tools.
	tools, err := enforcermcp.Tools(ctx, cs)
	if err != nil {
		return err
	}

	// The record of a tool result that broke its contract.
	record := agent.Observer{ToolEnd: func(_ context.Context, call agent.ToolCall, _ string, err error) {
		var ce *enforce.CheckError
		if errors.Is(err, enforcermcp.ErrOutputContract) && errors.As(err, &ce) {
			fmt.Fprintf(out, "recorded: %s (call %s) broke its output schema at %s: %s\n", call.Name, call.ID, ce.Path(), ce.Issues[0].Message)
		}
	}}
	a := agent.New(scripted(), agent.WithTools(tools...), agent.WithObserver(record), agent.WithOutputRetries(2))
	w, res, err := agent.RunTyped[Weather](ctx, a, "What's the weather in Paris?")
	if res != nil {
		for _, m := range res.Messages {
			if m.Role == agent.RoleTool {
				fmt.Fprintf(out, "the model saw (call %s): %s\n", m.ToolCallID, m.Content)
			}
		}
		for _, r := range res.Attempts {
			fmt.Fprintf(out, "attempt %d: %s\n", r.Attempt, r.Outcome)
		}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "answer: %+v\n", w)
	return nil
}

// newServer is an MCP server whose forecast tool gives the temperature
// as text the first time it is called, which its schema does not allow.
func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1"}, nil)
	var calls atomic.Int64 // handlers may run concurrently
	s.AddTool(&mcp.Tool{
		Name:         "forecast",
		Description:  "Current weather in a city.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		OutputSchema: json.RawMessage(forecastSchema),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ City string }
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		tempC := any(21)
		if calls.Add(1) == 1 {
			tempC = "21°C" // the bug
		}
		return &mcp.CallToolResult{StructuredContent: map[string]any{"city": in.City, "tempC": tempC}}, nil
	})
	return s
}

// connect serves s on an in-memory transport and returns the client's
// session; a real server is reached the same way over the SDK's command,
// stdio or streamable HTTP transports.
func connect(ctx context.Context, s *mcp.Server) (*mcp.ClientSession, error) {
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		return nil, err
	}
	// Through enforcermcp.Transport, results are judged as the server sent them.
	return mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v1"}, nil).Connect(ctx, enforcermcp.Transport(ct), nil)
}

// scripted stands in for a model: it calls the tool until a call
// succeeds, then answers with what the tool said.
func scripted() agent.Model {
	n := 0
	return agent.ModelFunc(func(_ context.Context, req agent.Request) (agent.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == agent.RoleTool && len(last.Content) > 0 && last.Content[0] == '{' {
			return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: last.Content}}, nil
		}
		n++
		call := agent.ToolCall{ID: fmt.Sprint("call-", n), Name: "forecast", Arguments: json.RawMessage(`{"city":"Paris"}`)}
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{call}}}, nil
	})
}
