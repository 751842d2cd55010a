package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	enforcermcp "github.com/enforcer-go/enforcer/integrations/mcp"
)

// callThenAnswer stands in for a model: it calls the tool, then answers
// with what the tool said.
var callThenAnswer = agent.ModelFunc(func(_ context.Context, req agent.Request) (agent.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == agent.RoleTool {
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: "the tool said " + last.Content}}, nil
	}
	call := agent.ToolCall{ID: "c1", Name: req.Tools[0].Name, Arguments: []byte(`{"city":"Paris"}`)}
	return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{call}}}, nil
})

// serve connects a client session to s in memory.
func serve(ctx context.Context, s *mcp.Server) (*mcp.ClientSession, error) {
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		return nil, err
	}
	return mcp.NewClient(&mcp.Implementation{Name: "my-agent"}, nil).Connect(ctx, ct, nil)
}

func ExampleTools() {
	ctx := context.Background()
	// A server in-process; any transport the SDK offers works the same.
	s := mcp.NewServer(&mcp.Implementation{Name: "weather"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "weather", Description: "Current weather in a city."},
		func(_ context.Context, _ *mcp.CallToolRequest, in WeatherIn) (*mcp.CallToolResult, Weather, error) {
			return nil, Weather{City: in.City, TempC: 21}, nil
		})
	cs, err := serve(ctx, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()

	tools, err := enforcermcp.Tools(ctx, cs)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := agent.New(callThenAnswer, agent.WithTools(tools...)).Run(ctx, "Weather in Paris?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Output)
	// Output:
	// the tool said {"city":"Paris","tempC":21}
}

func ExampleErrOutputContract() {
	ctx := context.Background()
	// A server whose tool declares an output schema and breaks it.
	s := mcp.NewServer(&mcp.Implementation{Name: "weather"}, nil)
	s.AddTool(&mcp.Tool{Name: "weather", InputSchema: objectSchema, OutputSchema: weatherSchema},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{StructuredContent: map[string]any{"city": "Paris", "tempC": "warm"}}, nil
		})
	cs, err := serve(ctx, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	tools, err := enforcermcp.Tools(ctx, cs)
	if err != nil {
		fmt.Println(err)
		return
	}

	// The record: the tool's error, as the observer receives it.
	record := agent.Observer{ToolEnd: func(_ context.Context, call agent.ToolCall, _ string, err error) {
		var ce *enforce.CheckError
		if errors.Is(err, enforcermcp.ErrOutputContract) && errors.As(err, &ce) {
			fmt.Printf("recorded: %s broke its contract at %s\n", call.Name, ce.Path())
		}
	}}
	res, err := agent.New(callThenAnswer, agent.WithTools(tools...), agent.WithObserver(record)).Run(ctx, "Weather in Paris?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Output)
	// Output:
	// recorded: weather broke its contract at /tempC
	// the tool said error: mcp: the result of tool "weather" breaks its output schema and was not used: schema-validate: /tempC: Invalid type. Expected: number, given: string
}

func ExampleTransport() {
	ctx := context.Background()
	// A tool whose result holds an ID past float64's exact integers.
	s := mcp.NewServer(&mcp.Implementation{Name: "orders"}, nil)
	s.AddTool(&mcp.Tool{Name: "order", InputSchema: json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(`{"id":1234567890123456789}`)}, nil
		})
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		fmt.Println(err)
		return
	}
	// Wrapped, the client judges and shows each result as the server sent it.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "my-agent"}, nil).Connect(ctx, enforcermcp.Transport(ct), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()

	tools, err := enforcermcp.Tools(ctx, cs)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := agent.New(callThenAnswer, agent.WithTools(tools...)).Run(ctx, "Order?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Output)
	// Output:
	// the tool said {"id":1234567890123456789}
}
