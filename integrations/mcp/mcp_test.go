package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	enforcermcp "github.com/enforcer-go/enforcer/integrations/mcp"
)

// connect serves s on an in-memory transport and returns a client
// session on the other end, closed at cleanup.
func connect(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	return connectThrough(t, s, func(ct mcp.Transport) mcp.Transport { return ct })
}

// connectThrough is connect with the client's transport wrapped by wrap.
func connectThrough(t *testing.T, s *mcp.Server, wrap func(mcp.Transport) mcp.Transport) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, nil).Connect(t.Context(), wrap(ct), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func newServer(opts *mcp.ServerOptions) *mcp.Server {
	return mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v0"}, opts)
}

// tools lists the session's tools, failing the test on an error.
func tools(t *testing.T, cs *mcp.ClientSession) []agent.Tool {
	t.Helper()
	ts, err := enforcermcp.Tools(t.Context(), cs)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

type WeatherIn struct {
	City string `json:"city"`
}

type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
}

// weatherSchema is a declared output schema, as a server that writes its
// own would send it.
var weatherSchema = json.RawMessage(`{
	"type": "object",
	"properties": {"city": {"type": "string"}, "tempC": {"type": "number"}},
	"required": ["city", "tempC"],
	"additionalProperties": false
}`)

var objectSchema = json.RawMessage(`{"type":"object"}`)

// rawTool adds a tool whose handler returns results as they are, unchecked
// by the server (Server.AddTool), with the output schema declared.
func rawTool(s *mcp.Server, name string, output json.RawMessage, h mcp.ToolHandler) {
	t := &mcp.Tool{Name: name, Description: name + " tool", InputSchema: objectSchema}
	if output != nil {
		t.OutputSchema = output
	}
	s.AddTool(t, h)
}

// results answers the calls of a raw tool with rs in order, the last one
// again when they run out.
func results(rs ...*mcp.CallToolResult) mcp.ToolHandler {
	var n atomic.Int64
	return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		i := min(int(n.Add(1))-1, len(rs)-1)
		r := *rs[i]
		return &r, nil
	}
}

// toolMessages are the contents of the tool messages of the last request
// m received, in order.
func toolMessages(m *agenttest.Model) []string {
	reqs := m.Requests()
	var out []string
	for _, msg := range reqs[len(reqs)-1].Messages {
		if msg.Role == agent.RoleTool {
			out = append(out, msg.Content)
		}
	}
	return out
}

// toolErrors records the errors an Observer's ToolEnd receives.
type toolErrors struct {
	mu   sync.Mutex
	errs []error
}

func (r *toolErrors) observer() agent.Observer {
	return agent.Observer{ToolEnd: func(_ context.Context, _ agent.ToolCall, _ string, err error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.errs = append(r.errs, err)
	}}
}

func (r *toolErrors) all() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.errs)
}

func jsonEqual(t *testing.T, got, want []byte) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: %v", want, err)
	}
	return reflect.DeepEqual(g, w)
}

func TestToolsListsEveryPageOfTheServer(t *testing.T) {
	s := newServer(&mcp.ServerOptions{PageSize: 2})
	var lists atomic.Int64
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				lists.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	var want []string
	for i := range 5 {
		name := fmt.Sprintf("tool%d", i)
		want = append(want, name)
		rawTool(s, name, nil, results(&mcp.CallToolResult{}))
	}
	cs := connect(t, s)

	ts := tools(t, cs)
	var got []string
	for _, tool := range ts {
		got = append(got, tool.Name)
		if tool.Description != tool.Name+" tool" {
			t.Errorf("tool %s: description %q, want %q", tool.Name, tool.Description, tool.Name+" tool")
		}
		if !jsonEqual(t, tool.Parameters, objectSchema) {
			t.Errorf("tool %s: parameters %s, want %s", tool.Name, tool.Parameters, objectSchema)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("tools = %v, want %v", got, want)
	}
	if got, want := lists.Load(), int64(3); got != want {
		t.Errorf("tools/list requests = %d, want %d (5 tools, 2 a page)", got, want)
	}
}

func TestAToolCallRoundTripsThroughRun(t *testing.T) {
	s := newServer(nil)
	var asked atomic.Value
	mcp.AddTool(s, &mcp.Tool{Name: "weather", Description: "Current weather in a city."},
		func(_ context.Context, _ *mcp.CallToolRequest, in WeatherIn) (*mcp.CallToolResult, Weather, error) {
			asked.Store(in.City)
			return nil, Weather{City: in.City, TempC: 21}, nil
		})
	cs := connect(t, s)

	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("c1", "weather", `{"city":"Paris"}`)),
		agenttest.Reply(`{"city":"Paris","tempC":21}`),
	)
	res, err := agent.New(m, agent.WithTools(tools(t, cs)...)).Run(t.Context(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := asked.Load(), "Paris"; got != want {
		t.Errorf("the server was asked for %v, want %v", got, want)
	}
	// The tool declares an output schema (the SDK reflects it from
	// Weather): the model is shown the structured result that kept it.
	if got, want := toolMessages(m), []string{`{"city":"Paris","tempC":21}`}; !slices.Equal(got, want) {
		t.Errorf("tool messages = %q, want %q", got, want)
	}
	if got, want := m.Requests()[0].Tools[0].Name, "weather"; got != want {
		t.Errorf("the model was offered %q, want %q", got, want)
	}
	if got, want := res.Output, `{"city":"Paris","tempC":21}`; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}

func TestAToolErrorIsAMessageTheModelReactsTo(t *testing.T) {
	s := newServer(nil)
	mcp.AddTool(s, &mcp.Tool{Name: "divide"},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct{ A, B int }) (*mcp.CallToolResult, any, error) {
			if in.B == 0 {
				return nil, nil, errors.New("division by zero")
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A / in.B)}}}, nil, nil
		})
	cs := connect(t, s)

	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("c1", "divide", `{"A":6,"B":0}`)),
		agenttest.CallTools(agenttest.Call("c2", "divide", `{"A":6,"B":3}`)),
		agenttest.Reply("2"),
	)
	var rec toolErrors
	_, err := agent.New(m, agent.WithTools(tools(t, cs)...), agent.WithObserver(rec.observer())).Run(t.Context(), "6/0, or else 6/3")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`error: mcp: tool "divide" reported an error: division by zero`, "2"}
	if got := toolMessages(m); !slices.Equal(got, want) {
		t.Errorf("tool messages = %q, want %q", got, want)
	}
	errs := rec.all()
	var e *enforcermcp.Error
	if len(errs) != 2 || !errors.Is(errs[0], enforcermcp.ErrToolFailed) || !errors.As(errs[0], &e) || errs[1] != nil {
		t.Fatalf("ToolEnd errors = %v, want ErrToolFailed, then none", errs)
	}
	if got, want := e.Tool, "divide"; got != want {
		t.Errorf("Error.Tool = %q, want %q", got, want)
	}
	if e.Result == nil || !e.Result.IsError {
		t.Errorf("Error.Result = %+v, want the result marked isError", e.Result)
	}
}

func TestAResultThatBreaksItsSchemaIsAToolErrorTheModelSees(t *testing.T) {
	s := newServer(nil)
	rawTool(s, "weather", weatherSchema, results(
		&mcp.CallToolResult{StructuredContent: map[string]any{"city": "Paris", "tempC": "warm", "wind": 3}},
		&mcp.CallToolResult{StructuredContent: map[string]any{"city": "Paris", "tempC": 21}},
	))
	cs := connect(t, s)

	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("c1", "weather", `{}`)),
		agenttest.CallTools(agenttest.Call("c2", "weather", `{}`)),
		agenttest.Reply("21 degrees"),
	)
	var rec toolErrors
	_, err := agent.New(m, agent.WithTools(tools(t, cs)...), agent.WithObserver(rec.observer())).Run(t.Context(), "Weather?")
	if err != nil {
		t.Fatal(err)
	}
	got := toolMessages(m)
	want := []string{
		`error: mcp: the result of tool "weather" breaks its output schema and was not used: ` +
			`schema-validate: /tempC: Invalid type. Expected: number, given: string (and 1 more)`,
		`{"city":"Paris","tempC":21}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("tool messages =\n%q\nwant\n%q", got, want)
	}

	// The record: what ToolEnd received.
	errs := rec.all()
	if len(errs) != 2 || errs[1] != nil {
		t.Fatalf("ToolEnd errors = %v, want one, then none", errs)
	}
	var ce *enforce.CheckError
	if !errors.Is(errs[0], enforcermcp.ErrOutputContract) || !errors.As(errs[0], &ce) {
		t.Fatalf("ToolEnd error = %v, want ErrOutputContract with an *enforce.CheckError", errs[0])
	}
	var paths []string
	for _, is := range ce.Issues {
		paths = append(paths, is.Path+" "+is.Keyword)
	}
	if want := []string{"/tempC type", "/wind additionalProperties"}; !slices.Equal(paths, want) {
		t.Errorf("issues = %q, want %q", paths, want)
	}
}

func TestEachResultIsJudgedByTheDeclaredSchema(t *testing.T) {
	text := func(s string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: s}} }
	tests := []struct {
		name    string
		output  json.RawMessage // the declared output schema; nil for none
		result  *mcp.CallToolResult
		want    string // what the model is shown on success
		wantErr error  // or the sentinel the call's error matches
	}{
		{
			name:   "a result that keeps the schema is shown as its structured content",
			output: weatherSchema,
			result: &mcp.CallToolResult{Content: text("ignore the schema"), StructuredContent: map[string]any{"city": "Oslo", "tempC": -3}},
			want:   `{"city":"Oslo","tempC":-3}`,
		},
		{
			name:    "a result with no structured content breaks a declared schema",
			output:  weatherSchema,
			result:  &mcp.CallToolResult{Content: text(`{"city":"Oslo","tempC":-3}`)},
			wantErr: enforcermcp.ErrOutputContract,
		},
		{
			name:    "structured content of the wrong type breaks it",
			output:  weatherSchema,
			result:  &mcp.CallToolResult{StructuredContent: []any{"Oslo", -3}},
			wantErr: enforcermcp.ErrOutputContract,
		},
		{
			name:    "an error result is the tool's error, not judged",
			output:  weatherSchema,
			result:  &mcp.CallToolResult{IsError: true, Content: text("station offline")},
			wantErr: enforcermcp.ErrToolFailed,
		},
		{
			name:   "a schema that names no dialect is 2020-12, where format is an annotation",
			output: json.RawMessage(`{"type":"object","properties":{"day":{"type":"string","format":"date"}}}`),
			result: &mcp.CallToolResult{StructuredContent: map[string]any{"day": "someday"}},
			want:   `{"day":"someday"}`,
		},
		{
			name:    "a schema that names draft-07 asserts format",
			output:  json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"day":{"type":"string","format":"date"}}}`),
			result:  &mcp.CallToolResult{StructuredContent: map[string]any{"day": "someday"}},
			wantErr: enforcermcp.ErrOutputContract,
		},
		{
			name:   "a tool without a schema is shown its content blocks",
			result: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "two"}, &mcp.ImageContent{MIMEType: "image/png", Data: []byte("png!")}, &mcp.TextContent{Text: "blocks"}}},
			want:   "two\n[image: image/png, 4 bytes]\nblocks",
		},
		{
			name:   "a tool without a schema or blocks is shown its structured content",
			result: &mcp.CallToolResult{StructuredContent: map[string]any{"n": 1}},
			want:   `{"n":1}`,
		},
		{
			name:   "structured content may be any JSON value",
			output: json.RawMessage(`{"type":"array","items":{"type":"integer"}}`),
			result: &mcp.CallToolResult{StructuredContent: []any{1, 2, 3}},
			want:   `[1,2,3]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(nil)
			rawTool(s, "tool", tt.output, results(tt.result))
			ts := tools(t, connect(t, s))
			got, err := ts[0].Run(t.Context(), json.RawMessage(`{}`))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("Run = %q, %v; want an error matching %v", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Run = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestARefusedOutputSchemaFailsTheListingByName(t *testing.T) {
	s := newServer(nil)
	rawTool(s, "good", weatherSchema, results(&mcp.CallToolResult{}))
	rawTool(s, "open", json.RawMessage(`{"type":"object","allOf":[{"properties":{"a":{}}}],"unevaluatedProperties":false}`), results(&mcp.CallToolResult{}))
	rawTool(s, "ancient", json.RawMessage(`{"$schema":"http://json-schema.org/draft-03/schema#","type":"object"}`), results(&mcp.CallToolResult{}))
	cs := connect(t, s)

	ts, err := enforcermcp.Tools(t.Context(), cs)
	if !errors.Is(err, enforcermcp.ErrSchemaRefused) {
		t.Fatalf("Tools error = %v, want ErrSchemaRefused", err)
	}
	var names []string
	for _, tool := range ts {
		names = append(names, tool.Name)
	}
	if want := []string{"good"}; !slices.Equal(names, want) {
		t.Errorf("tools returned beside the error = %v, want %v", names, want)
	}

	// One *Error per refused tool, each with enforce's reason.
	var refused []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var me *enforcermcp.Error
		var se *enforce.SchemaError
		if !errors.As(e, &me) || !errors.As(e, &se) {
			t.Fatalf("joined error %v: want an *Error with an *enforce.SchemaError", e)
		}
		refused = append(refused, me.Tool+" "+se.Keyword)
	}
	slices.Sort(refused)
	if want := []string{"ancient $schema", "open unevaluatedProperties"}; !slices.Equal(refused, want) {
		t.Errorf("refused = %q, want %q", refused, want)
	}
}

func TestACancelledRunCancelsTheCallOnTheServer(t *testing.T) {
	s := newServer(nil)
	started, stopped := make(chan struct{}), make(chan error, 1)
	release := make(chan struct{}) // ends a handler never cancelled, so the session can close
	rawTool(s, "slow", nil, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(started)
		select {
		case <-ctx.Done():
			stopped <- ctx.Err()
		case <-release:
		}
		return &mcp.CallToolResult{}, nil
	})
	cs := connect(t, s)
	t.Cleanup(func() { close(release) }) // before connect's cleanup: they run last first

	m := agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("c1", "slow", `{}`)))
	a := agent.New(m, agent.WithTools(tools(t, cs)...))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := a.Run(ctx, "go slow")
		done <- err
	}()
	<-started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	// The SDK sent notifications/cancelled: the server's handler saw its
	// context end. (The bound only stops a broken build from hanging.)
	select {
	case err := <-stopped:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the server's handler ended with %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server's handler was never cancelled")
	}
}

func TestAClosedSessionIsAToolError(t *testing.T) {
	s := newServer(nil)
	rawTool(s, "echo", nil, results(&mcp.CallToolResult{}))
	cs := connect(t, s)
	ts := tools(t, cs)
	cs.Close()

	_, err := ts[0].Run(t.Context(), json.RawMessage(`{}`))
	var e *enforcermcp.Error
	if !errors.As(err, &e) || !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Fatalf("Run on a closed session = %v, want an *Error wrapping mcp.ErrConnectionClosed", err)
	}
	if e.Result != nil {
		t.Errorf("Error.Result = %+v, want none", e.Result)
	}
	for _, sentinel := range []error{enforcermcp.ErrToolFailed, enforcermcp.ErrOutputContract, enforcermcp.ErrSchemaRefused, enforcermcp.ErrNeedsInput} {
		if errors.Is(err, sentinel) {
			t.Errorf("a protocol failure matches %v", sentinel)
		}
	}
}

func TestParallelCallsShareOneSession(t *testing.T) {
	s := newServer(nil)
	mcp.AddTool(s, &mcp.Tool{Name: "weather"},
		func(_ context.Context, _ *mcp.CallToolRequest, in WeatherIn) (*mcp.CallToolResult, Weather, error) {
			return nil, Weather{City: in.City, TempC: float64(len(in.City))}, nil
		})
	cs := connect(t, s)

	cities := []string{"Oslo", "Lima", "Paris", "Nairobi"}
	var calls []agent.ToolCall
	var want []string
	for i, c := range cities {
		calls = append(calls, agenttest.Call(fmt.Sprint("c", i), "weather", fmt.Sprintf(`{"city":%q}`, c)))
		want = append(want, fmt.Sprintf(`{"city":%q,"tempC":%d}`, c, len(c)))
	}
	m := agenttest.NewModel(t, agenttest.CallTools(calls...), agenttest.Reply("done"))
	a := agent.New(m, agent.WithTools(tools(t, cs)...), agent.WithParallelTools(len(cities)))
	if _, err := a.Run(t.Context(), "Weather everywhere?"); err != nil {
		t.Fatal(err)
	}
	if got := toolMessages(m); !slices.Equal(got, want) {
		t.Errorf("tool messages = %q, want %q", got, want)
	}
}

func TestToolsOfNoSessionIsAnError(t *testing.T) {
	if ts, err := enforcermcp.Tools(t.Context(), nil); err == nil || ts != nil {
		t.Errorf("Tools(nil) = %v, %v; want no tools and an error", ts, err)
	}
}

func TestARenamedToolStillCallsItsServerName(t *testing.T) {
	s := newServer(nil)
	var called atomic.Value
	rawTool(s, "files.read", nil, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		called.Store(req.Params.Name)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "contents"}}}, nil
	})
	ts := tools(t, connect(t, s))
	ts[0].Name = "files_read" // a name providers accept: no dots

	m := agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("c1", "files_read", `{}`)), agenttest.Reply("read"))
	if _, err := agent.New(m, agent.WithTools(ts...)).Run(t.Context(), "read it"); err != nil {
		t.Fatal(err)
	}
	if got, want := called.Load(), "files.read"; got != want {
		t.Errorf("the server was called as %v, want %v", got, want)
	}
	if got, want := toolMessages(m), []string{"contents"}; !slices.Equal(got, want) {
		t.Errorf("tool messages = %q, want %q", got, want)
	}
}
