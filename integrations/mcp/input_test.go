package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	enforcermcp "github.com/enforcer-go/enforcer/integrations/mcp"
)

// countingTool adds a tool with input schema in whose handler counts its
// calls.
func countingTool(s *mcp.Server, name string, in json.RawMessage, calls *atomic.Int64) {
	s.AddTool(&mcp.Tool{Name: name, Description: name + " tool", InputSchema: in},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
}

func TestArgumentsThatBreakTheInputSchemaAreNeverSent(t *testing.T) {
	s := newServer(nil)
	var calls atomic.Int64
	countingTool(s, "weather", json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`), &calls)
	// prefixItems is 2020-12's: read as draft-07, the schema would ignore it.
	countingTool(s, "pair", json.RawMessage(`{"type":"object","properties":{"pair":{"type":"array","prefixItems":[{"type":"string"}]}}}`), &calls)
	ts := tools(t, connect(t, s))
	for _, tt := range []struct{ tool, args, path string }{
		{"weather", `{"city":42}`, "/city"},
		{"weather", `{}`, "/city"},
		{"pair", `{"pair":[1]}`, "/pair/0"},
	} {
		i := slices.IndexFunc(ts, func(x agent.Tool) bool { return x.Name == tt.tool })
		_, err := ts[i].Run(t.Context(), json.RawMessage(tt.args))
		var ce *enforce.CheckError
		if !errors.Is(err, enforcermcp.ErrInputContract) || !errors.As(err, &ce) || ce.Path() != tt.path {
			t.Errorf("%s(%s): Run = %v, want ErrInputContract with the *enforce.CheckError at %q", tt.tool, tt.args, err, tt.path)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the server saw %d calls, want none", n)
	}
	weather := ts[slices.IndexFunc(ts, func(x agent.Tool) bool { return x.Name == "weather" })]
	if out, err := weather.Run(t.Context(), json.RawMessage(`{"city":"Paris"}`)); err != nil || out != "done" || calls.Load() != 1 {
		t.Errorf("a good call: Run = %q, %v (server calls %d); want it sent and answered", out, err, calls.Load())
	}
}

func TestAnAgentsBadCallOfAnMCPToolIsOnTheRecordAndNeverSent(t *testing.T) {
	s := newServer(nil)
	var calls atomic.Int64
	countingTool(s, "weather", json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`), &calls)
	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("c1", "weather", `{"city":42}`)),
		agenttest.CallTools(agenttest.Call("c2", "weather", `{"city":"Paris"}`)),
		agenttest.Reply("sunny"))
	res, err := agent.New(m, agent.WithTools(tools(t, connect(t, s))...)).Run(t.Context(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the server saw %d calls, want only the good one", n)
	}
	if len(res.Calls) != 2 || res.Calls[0].Outcome != enforce.OutcomeRetried || res.Calls[0].Path != "/city" || res.Calls[1].Outcome != enforce.OutcomePassed {
		t.Errorf("Calls = %+v, want c1 retried at /city, then c2 passed", res.Calls)
	}
}

func TestARefusedInputSchemaFailsTheListingByName(t *testing.T) {
	cs := rawServer(t, nil, `[{"name":"good","inputSchema":{"type":"object"}},`+
		`{"name":"dangling","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/$defs/gone"}}}}]`)
	ts, err := enforcermcp.Tools(t.Context(), cs)
	if len(ts) != 1 || ts[0].Name != "good" {
		t.Errorf("tools beside the error = %+v, want good alone", ts)
	}
	var me *enforcermcp.Error
	var se *enforce.SchemaError
	if !errors.Is(err, enforcermcp.ErrSchemaRefused) || !errors.As(err, &me) || !errors.As(err, &se) {
		t.Fatalf("Tools error = %v, want ErrSchemaRefused, an *Error with an *enforce.SchemaError", err)
	}
	if me.Tool != "dangling" || me.Schema != "inputSchema" || se.Keyword != "$ref" || se.Location != "/properties/a" {
		t.Errorf("refused = tool %q, schema %q, keyword %q at %q; want dangling's inputSchema, $ref at /properties/a", me.Tool, me.Schema, se.Keyword, se.Location)
	}
	if !strings.Contains(err.Error(), `"dangling"`) || !strings.Contains(err.Error(), "inputSchema") {
		t.Errorf("Tools error = %q, want it to name the tool and its inputSchema", err)
	}
}
