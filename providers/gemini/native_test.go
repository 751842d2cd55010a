package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
	"github.com/enforcer-go/enforcer/providers/native"
)

// code has a keyword Gemini's structured output does not take beside
// ones it does.
const codeContract = `{"type": "object", "required": ["code"], "additionalProperties": false,
	"properties": {"code": {"type": "string", "minLength": 3, "maxLength": 3, "pattern": "^[A-Z]+$"}, "note": {"type": "string"}}}`

// The contract goes lowered for Gemini, which its rules accept, and a
// keyword Gemini does not enforce is still judged: an answer that breaks
// it is corrected.
func TestWithNativeSchemaSendsTheContractLoweredForGemini(t *testing.T) {
	report, err := NativeReport([]byte(codeContract))
	if err != nil {
		t.Fatal(err)
	}
	var dropped []string
	for _, k := range report.Keywords {
		if !k.Enforced {
			dropped = append(dropped, k.Name)
		}
	}
	if report.Mode == native.ModeNone || len(dropped) == 0 {
		t.Fatalf("report = %+v: want the contract sent, some keyword enforced by enforcer alone", report)
	}
	s, err := enforce.CompileSchema([]byte(codeContract))
	if err != nil {
		t.Fatal(err)
	}
	srv := newFakeServer(t, okReply(answer(`{"code": "abcd"}`)), okReply(answer(`{"code": "ABC"}`)))
	a := agent.New(New(srv.client(t), "gemini-test", WithNativeSchema()), agent.WithOutputSchema(s), agent.WithOutputRetries(1))
	res, err := a.Run(t.Context(), "code?")
	if err != nil {
		t.Fatalf("err = %v, rows %+v; want the corrected answer to pass", err, res.Attempts)
	}
	if len(res.Attempts) != 2 || res.Attempts[0].Outcome != enforce.OutcomeRetried || res.Attempts[0].Path != "/code" {
		t.Errorf("rows = %+v, want retried at /code, then passed", res.Attempts)
	}
	var sent struct {
		GenerationConfig struct {
			ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		} `json:"generationConfig"`
	}
	if err := json.Unmarshal(srv.requests()[0], &sent); err != nil || sent.GenerationConfig.ResponseJSONSchema == nil {
		t.Fatalf("request %s: no responseJsonSchema (%v)", srv.requests()[0], err)
	}
	if err := wiretest.GeminiSchema(sent.GenerationConfig.ResponseJSONSchema); err != nil {
		t.Errorf("the schema sent breaks Gemini's rules: %v\n%s", err, sent.GenerationConfig.ResponseJSONSchema)
	}
}

// A contract Gemini's structured output cannot express (recursion) goes
// with no schema rather than as a request Gemini refuses.
func TestWithNativeSchemaSendsNoSchemaGeminiCannotTake(t *testing.T) {
	recursive := `{"$ref": "#/definitions/node", "definitions": {"node": {"type": "object", "properties": {"next": {"$ref": "#/definitions/node"}}}}}`
	report, err := NativeReport([]byte(recursive))
	if err != nil || report.Mode != native.ModeNone {
		t.Fatalf("report = %+v, %v; want mode none", report, err)
	}
	srv := newFakeServer(t, okReply(answer(`{}`)))
	req := agent.Request{Messages: plain().Messages, OutputSchema: json.RawMessage(recursive)}
	if _, err := New(srv.client(t), "gemini-test", WithNativeSchema()).Generate(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if got := string(srv.requests()[0]); strings.Contains(got, "responseJsonSchema") {
		t.Errorf("request = %s, want no response schema", got)
	}
}
