package openaiwiretest

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/enforcer-go/enforcer/providers/internal/openaiwire"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
	"github.com/enforcer-go/enforcer/providers/native"
)

// compatible is each OpenAI-compatible provider of issue 36, with the
// rules its wire server refuses a response_format by, and whether it
// reads them only under strict: true (the others read every schema).
var compatible = []struct {
	profile    native.Profile
	check      func([]byte) error
	strictOnly bool
}{
	{native.Mistral, wiretest.MistralStrict, true},
	{native.Groq, wiretest.GroqStrict, true},
	{native.XAI, wiretest.XAISchema, false},
	{native.OpenRouter, wiretest.OpenAIStrict, true},
	{native.DeepSeek, wiretest.DeepSeekSchema, false},
}

// profileServer is a chat completions server that answers 400, as the
// provider does, for a json_schema response format its rules refuse.
func profileServer(t *testing.T, check func([]byte) error, strictOnly bool, script ...reply) *fakeServer {
	srv := newFakeServer(t, script...)
	srv.Refuses(func(body []byte) (int, string, bool) {
		var req WireRequest
		if json.Unmarshal(body, &req) != nil || req.ResponseFormat == nil || req.ResponseFormat.Type != "json_schema" {
			return 0, "", false
		}
		js := req.ResponseFormat.JSONSchema
		if strictOnly && (js.Strict == nil || !*js.Strict) {
			return 0, "", false
		}
		if err := check(js.Schema); err != nil {
			msg, _ := json.Marshal(err.Error())
			return http.StatusBadRequest, `{"error":{"message":` + string(msg) + `,"type":"invalid_request_error","param":"response_format","code":null}}`, true
		}
		return 0, "", false
	})
	return srv
}

func (h Harness) testEachCompatibleProfileIsNeverRefusedByItsServer(t *testing.T) {
	contracts := wiretest.Contracts(t, "../native/testdata/contracts")
	contracts["Person"] = wiretest.SchemaOf[Person](t)
	for _, p := range compatible {
		t.Run(string(p.profile)+"'s server refuses what the adapter sends unlowered", func(t *testing.T) {
			_, raw, _ := openaiwire.InlineRoot(contracts["Person"])
			b, _ := json.Marshal(raw)
			if p.check(b) == nil {
				t.Fatal("the rules take Person's schema as reflected (minLength, optional members, no additionalProperties)")
			}
		})
		for name, c := range contracts {
			t.Run(string(p.profile)+": "+name+" is taken", func(t *testing.T) {
				h.sentAsReported(t, profileServer(t, p.check, p.strictOnly, okReply(Completion(`{}`))), "m", p.profile, c)
			})
		}
	}
}

func (h Harness) testDeepSeekIsNeverSentASchema(t *testing.T) {
	report, err := openaiwire.NativeReport(wiretest.SchemaOf[Person](t), native.DeepSeek)
	if err != nil {
		t.Fatal(err)
	}
	if report.Mode != native.ModeNone || report.Reason == "" || report.Dropped() != len(report.Keywords) {
		t.Errorf("report = %+v, want mode none with a reason and every keyword judged by enforcer only", report)
	}
}
