package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// answerCall is a reply that calls name with args.
func answerCall(name, args string) string {
	return response("STOP", `{"promptTokenCount":30,"candidatesTokenCount":8,"totalTokenCount":38}`, funcCall("", name, args))
}

func TestAgentOutputToolThroughTheWire(t *testing.T) {
	srv := newFakeServer(t,
		okReply(answerCall("final_result", `{"city":"Paris"}`)), // tempC missing
		okReply(answerCall("final_result", `{"city":"Paris","tempC":18}`)),
	)
	a := agent.New(New(srv.client(t), "gemini-2.5-flash", WithNativeSchema()), agent.WithOutputTool("final_result"), agent.WithOutputRetries(1))
	w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w, (Weather{City: "Paris", TempC: 18}); got != want {
		t.Errorf("answer = %+v, want %+v (the second call's arguments)", got, want)
	}
	if len(res.Attempts) != 2 || res.Attempts[0].Stage != enforce.StageSchemaValidate || res.Attempts[0].Path != "/tempC" {
		t.Errorf("rows = %+v, want the first call's arguments failing at /tempC, then a pass", res.Attempts)
	}
	first, _ := decodeRequest(t, srv.requests()[0])
	if first.ToolConfig == nil || first.ToolConfig.FunctionCallingConfig.Mode != "ANY" {
		t.Errorf("toolConfig = %+v, want function calling mode ANY", first.ToolConfig)
	}
	if _, ok := first.GenerationConfig["responseJsonSchema"]; ok {
		t.Errorf("generationConfig = %v, want no response schema: the schema is the tool's parameters", first.GenerationConfig)
	}
	if len(first.Tools) != 1 || len(first.Tools[0].FunctionDeclarations) != 1 || first.Tools[0].FunctionDeclarations[0].Name != "final_result" {
		t.Fatalf("tools = %+v, want final_result alone", first.Tools)
	}
	var params struct {
		Type     string   `json:"type"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(first.Tools[0].FunctionDeclarations[0].ParametersJsonSchema, &params); err != nil {
		t.Fatal(err)
	}
	if params.Type != "object" || strings.Join(params.Required, ",") != "city,tempC" {
		t.Errorf("parameters = %+v, want the contract inlined at the root", params)
	}
	// The correction is the call's result.
	second, _ := decodeRequest(t, srv.requests()[1])
	n := len(second.Contents)
	if second.Contents[n-1].Role != "user" || second.Contents[n-1].Parts[0]["functionResponse"] == nil {
		t.Errorf("last content = %+v, want the call's result", second.Contents[n-1])
	}
}

func TestAgentOutputToolProseInsteadOfTheCallThroughTheWire(t *testing.T) {
	srv := newFakeServer(t,
		okReply(answer("Paris is sunny, 18 degrees.")),
		okReply(answerCall("final_result", `{"city":"Paris","tempC":18}`)),
	)
	a := agent.New(New(srv.client(t), "gemini-2.5-flash"), agent.WithOutputTool("final_result"), agent.WithOutputRetries(1))
	w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if w.City != "Paris" || len(res.Attempts) != 2 || res.Attempts[0].Outcome != enforce.OutcomeRetried {
		t.Errorf("answer %+v, rows %+v; want prose retried, then the call", w, res.Attempts)
	}
}
