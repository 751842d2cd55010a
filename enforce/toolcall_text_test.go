package enforce_test

import (
	"reflect"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// declared is the tools of the text-call tests: lookup and clock.
func declared(tool string) bool { return tool == "lookup" || tool == "clock" }

func TestReadTextCallsReadsTheFormsServersLeaveInTheText(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		want          []enforce.TextCall
	}{
		{"hermes", "<tool_call>\n{\"name\": \"lookup\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
			[]enforce.TextCall{{Tool: "lookup", Arguments: `{"city": "Paris"}`}}},
		{"hermes, two", "<tool_call>{\"name\":\"lookup\",\"arguments\":{\"city\":\"Paris\"}}</tool_call>\n\n<tool_call>{\"name\":\"clock\",\"arguments\":{}}</tool_call>\n",
			[]enforce.TextCall{{Tool: "lookup", Arguments: `{"city":"Paris"}`}, {Tool: "clock", Arguments: `{}`}}},
		{"hermes, a close tag inside a string", `<tool_call>{"name":"lookup","arguments":{"city":"</tool_call>"}}</tool_call>`,
			[]enforce.TextCall{{Tool: "lookup", Arguments: `{"city":"</tool_call>"}`}}},
		{"mistral", `[TOOL_CALLS][{"name": "lookup", "arguments": {"city": "Paris"}, "id": "a1B2c3D4e"}, {"name": "clock", "arguments": {}}]`,
			[]enforce.TextCall{{Tool: "lookup", ID: "a1B2c3D4e", Arguments: `{"city": "Paris"}`}, {Tool: "clock", Arguments: `{}`}}},
		{"llama", `<|python_tag|>{"name": "lookup", "parameters": {"city": "Paris"}}`,
			[]enforce.TextCall{{Tool: "lookup", Arguments: `{"city": "Paris"}`}}},
		{"bare", ` {"name": "lookup", "arguments": {"city": "Paris"}} `,
			[]enforce.TextCall{{Tool: "lookup", Arguments: `{"city": "Paris"}`}}},
		{"arguments as a string, as written", `{"name":"lookup","arguments":"{\"city\":\"Paris\"}"}`,
			[]enforce.TextCall{{Tool: "lookup", Arguments: `"{\"city\":\"Paris\"}"`}}},
	} {
		got, ok := enforce.ReadTextCalls(tc.content, declared)
		if !ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: ReadTextCalls(%q) = %+v, %v; want %+v", tc.name, tc.content, got, ok, tc.want)
		}
	}
}

func TestReadTextCallsRefusesWhatHasASecondReading(t *testing.T) {
	for name, content := range map[string]string{
		"prose before":          "Let me look it up.\n<tool_call>{\"name\":\"lookup\",\"arguments\":{\"city\":\"Paris\"}}</tool_call>",
		"prose after":           "<tool_call>{\"name\":\"lookup\",\"arguments\":{\"city\":\"Paris\"}}</tool_call>\nIt is sunny in Paris.",
		"prose between":         "<tool_call>{\"name\":\"lookup\",\"arguments\":{}}</tool_call> or <tool_call>{\"name\":\"clock\",\"arguments\":{}}</tool_call>",
		"text inside the tag":   `<tool_call>{"name":"lookup","arguments":{}} maybe</tool_call>`,
		"undeclared tool":       `<tool_call>{"name":"search","arguments":{"q":"Paris"}}</tool_call>`,
		"one of two undeclared": `[TOOL_CALLS][{"name":"lookup","arguments":{}},{"name":"search","arguments":{}}]`,
		"cut inside the value":  `<tool_call>{"name":"lookup","arguments":{"city":"Pa`,
		"cut before the close":  `<tool_call>{"name":"lookup","arguments":{"city":"Paris"}}`,
		"cut list":              `[TOOL_CALLS][{"name":"lookup","arguments":{}},`,
		"name said twice":       `{"name":"lookup","name":"clock","arguments":{}}`,
		"arguments and params":  `{"name":"lookup","arguments":{},"parameters":{}}`,
		"another member":        `{"name":"lookup","arguments":{},"answer":"sunny"}`,
		"no arguments":          `{"name":"lookup"}`,
		"name not a string":     `{"name":["lookup"],"arguments":{}}`,
		"empty tag":             `<tool_call></tool_call>`,
		"empty list":            `[TOOL_CALLS][]`,
		"two forms":             `<tool_call>{"name":"lookup","arguments":{}}</tool_call>[TOOL_CALLS][{"name":"clock","arguments":{}}]`,
		"llama, two values":     `<|python_tag|>{"name":"lookup","parameters":{}}; {"name":"clock","parameters":{}}`,
		"a bare list":           `[{"name":"lookup","arguments":{}}]`,
		"fenced":                "```json\n{\"name\":\"lookup\",\"arguments\":{}}\n```",
		"plain answer":          `sunny`,
		"an answer object":      `{"city":"Paris","sky":"sunny"}`,
		"invalid UTF-8":         "{\"name\":\"lookup\",\"arguments\":{\"city\":\"\xff\"}}",
		"nothing":               ``,
		"id not a string":       `{"name":"lookup","arguments":{},"id":7}`,
		"broken arguments":      `{"name":"lookup","arguments":{"city":}}`,
	} {
		if got, ok := enforce.ReadTextCalls(content, declared); ok || got != nil {
			t.Errorf("%s: ReadTextCalls(%q) = %+v, %v; want no reading", name, content, got, ok)
		}
	}
}

func TestAReadBackCallsRowNamesTheRepair(t *testing.T) {
	s, err := enforce.CompileSchema([]byte(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`))
	if err != nil {
		t.Fatal(err)
	}
	l, err := enforce.NewCallLedger(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	s = s.WithRepairs(enforce.AllRepairs)
	passed := l.Judge(s, enforce.Call{Tool: "lookup", ID: "c1", Arguments: `{"city":"Paris"}`, FromText: true})
	failed := l.Judge(s, enforce.Call{Tool: "lookup", ID: "c2", Arguments: `{"city":3}`, FromText: true})
	if passed.Row.Outcome != enforce.OutcomePassed || passed.Row.Repaired != enforce.RepairToolText || passed.Arguments != `{"city":"Paris"}` {
		t.Errorf("passed row %+v, arguments %q: want passed, repaired tooltext, the arguments as written", passed.Row, passed.Arguments)
	}
	if failed.Row.Outcome != enforce.OutcomeRetried || failed.Row.Repaired != enforce.RepairToolText || failed.Err.Repaired != enforce.RepairToolText {
		t.Errorf("failed row %+v (error's repairs %v): want retried, repaired tooltext", failed.Row, failed.Err.Repaired)
	}
	if rs, err := enforce.ParseRepairs("tooltext"); err != nil || rs != enforce.RepairToolText || enforce.AllRepairs&enforce.RepairToolText == 0 {
		t.Errorf(`ParseRepairs("tooltext") = %v, %v; want RepairToolText, part of AllRepairs`, rs, err)
	}
}
