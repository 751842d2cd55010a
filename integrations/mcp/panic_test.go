package mcp_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	enforcermcp "github.com/enforcer-go/enforcer/integrations/mcp"
	"github.com/enforcer-go/enforcer/internal/proc"
)

// serverEnv makes the test binary, started again with it set, an MCP
// server on its stdin and stdout whose tool "crash" panics.
const serverEnv = "ENFORCERMCP_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) == "panics" {
		s := newServer(nil)
		rawTool(s, "crash", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			panic("a bug in the tool")
		})
		rawTool(s, "echo", nil, results(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo"}}}))
		_ = s.Run(context.Background(), &mcp.StdioTransport{})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestAServerThatPanicsIsAToolErrorTheModelSees(t *testing.T) {
	cmd := proc.ForTest(t, os.Args[0])
	cmd.Env = append(os.Environ(), serverEnv+"=panics")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, nil).
		Connect(t.Context(), &mcp.CommandTransport{Command: cmd.Cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			cs.Close()
		}
	})
	ts := tools(t, cs)

	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("c1", "crash", `{}`)),
		agenttest.CallTools(agenttest.Call("c2", "echo", `{}`)),
		agenttest.Reply("the server is gone"),
	)
	var rec toolErrors
	res, err := agent.New(m, agent.WithTools(ts...), agent.WithObserver(rec.observer())).Run(t.Context(), "crash it")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Output, "the server is gone"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
	// The server process died in the first call; the second finds the
	// session closed. Both are messages the model saw.
	msgs := toolMessages(m)
	if len(msgs) != 2 || !strings.HasPrefix(msgs[0], `error: mcp: calling tool "crash": `) || !strings.HasPrefix(msgs[1], `error: mcp: calling tool "echo": `) {
		t.Errorf("tool messages = %q, want two protocol errors", msgs)
	}
	errs := rec.all()
	if len(errs) != 2 || !slices.ContainsFunc(errs, func(err error) bool { return errors.Is(err, mcp.ErrConnectionClosed) }) {
		t.Errorf("ToolEnd errors = %v, want two, the session closed", errs)
	}
	for _, err := range errs {
		var e *enforcermcp.Error
		if !errors.As(err, &e) || e.Result != nil {
			t.Errorf("ToolEnd error %v: want an *Error with no result", err)
		}
	}
	// Close waits for the process, and so for its stderr.
	closed = true
	cs.Close()
	if !strings.Contains(stderr.String(), "panic: a bug in the tool") {
		t.Errorf("the server's stderr lacks its panic:\n%s", stderr.String())
	}
}
