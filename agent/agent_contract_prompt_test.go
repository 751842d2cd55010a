package agent_test

import (
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

// leadingID matches the "$id" invopop writes first in a reflected schema.
var leadingID = regexp.MustCompile(`^\{"\$id":"[^"]*",`)

// sent is a reflected schema as the model is sent it: without its "$id".
func sent(t testing.TB, js []byte) string {
	t.Helper()
	if !leadingID.Match(js) {
		t.Fatalf("schema %s does not start with an $id; the test needs one", js)
	}
	return leadingID.ReplaceAllString(string(js), "{")
}

func TestTheModelIsNotToldTheGoImportPath(t *testing.T) {
	tool := agent.NewTool("lookup", "Looks up the weather of a city.", func(context.Context, lookupArgs) (string, error) { return "", nil })
	m := agenttest.NewModel(t, agenttest.Reply(valid))
	if _, _, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithTools(tool)), "hi"); err != nil {
		t.Fatal(err)
	}
	req := m.Requests()[0]
	weather, _ := enforce.SchemaFor[Weather]()
	args, _ := enforce.SchemaFor[lookupArgs]()
	if got, want := string(req.OutputSchema), sent(t, weather.JSON()); got != want {
		t.Errorf("OutputSchema = %s, want %s", got, want)
	}
	if got, want := string(req.Tools[0].Parameters), sent(t, args.JSON()); got != want {
		t.Errorf("tool parameters = %s, want %s", got, want)
	}
	for _, text := range []string{req.Messages[0].Content, string(req.OutputSchema), string(req.Tools[0].Parameters)} {
		if strings.Contains(text, "$id") || strings.Contains(text, "enforcer-go") {
			t.Errorf("the model is sent %s", text)
		}
	}
}

func TestASchemaSentToTheModelLeavesOutItsID(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   string // "" for the schema unchanged
	}{
		{
			name:   "a root $id goes, and the other members keep their order and bytes",
			schema: `{"type": "object", "$id": "https://example.com/x", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"type": "string"}}}`,
			want:   `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string"}}}`,
		},
		{
			name:   "an $id of a property is a property, and stays",
			schema: `{"type": "object", "properties": {"$id": {"type": "string"}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := enforce.CompileSchema([]byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			m := agenttest.NewModel(t, agenttest.Reply(`{}`))
			if _, err := agent.New(m, agent.WithOutputSchema(s)).Run(t.Context(), "hi"); err != nil {
				t.Fatal(err)
			}
			req := m.Requests()[0]
			want := tt.want
			if want == "" {
				want = string(s.JSON())
			}
			if got := string(req.OutputSchema); got != want {
				t.Errorf("OutputSchema = %s, want %s", got, want)
			}
			if !strings.HasSuffix(req.Messages[0].Content, want) {
				t.Errorf("system message = %q, want it to end with %s", req.Messages[0].Content, want)
			}
			var gotTree, wantTree any
			if err := json.Unmarshal(req.OutputSchema, &gotTree); err != nil {
				t.Fatalf("OutputSchema is not JSON: %v", err)
			}
			json.Unmarshal(s.JSON(), &wantTree)
			if tt.want != "" {
				delete(wantTree.(map[string]any), "$id")
			}
			if !reflect.DeepEqual(gotTree, wantTree) {
				t.Errorf("OutputSchema means %v, want %v", gotTree, wantTree)
			}
		})
	}
}

func TestAToolsIDStaysWhenAReferenceResolvesAgainstIt(t *testing.T) {
	params := `{"$id": "https://example.com/args", "type": "object", "properties": {"b": {"$ref": "args#/definitions/b"}}, "definitions": {"b": {"type": "string"}}}`
	tool := agent.Tool{Name: "t", Parameters: json.RawMessage(params), Run: func(context.Context, json.RawMessage) (string, error) { return "", nil }}
	m := agenttest.NewModel(t, agenttest.Reply("done"))
	if _, err := agent.New(m, agent.WithTools(tool)).Run(t.Context(), "hi"); err != nil {
		t.Fatal(err)
	}
	if got := string(m.Requests()[0].Tools[0].Parameters); got != params {
		t.Errorf("tool parameters = %s, want them as given, %s", got, params)
	}
}
