package openaiwiretest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/providers/internal/openaiwire"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
	"github.com/enforcer-go/enforcer/providers/native"
)

// strictServer is a chat completions server that answers 400, as OpenAI
// does, for a strict response_format its documented rules refuse.
func strictServer(t *testing.T, script ...reply) *fakeServer {
	srv := newFakeServer(t, script...)
	srv.Refuses(func(body []byte) (int, string, bool) {
		var req WireRequest
		if json.Unmarshal(body, &req) != nil || req.ResponseFormat == nil {
			return 0, "", false
		}
		js := req.ResponseFormat.JSONSchema
		if js.Strict == nil || !*js.Strict {
			return 0, "", false
		}
		if err := wiretest.OpenAIStrict(js.Schema); err != nil {
			msg, _ := json.Marshal("Invalid schema for response_format '" + js.Name + "': " + err.Error())
			return http.StatusBadRequest, `{"error":{"message":` + string(msg) + `,"type":"invalid_request_error","param":"response_format","code":null}}`, true
		}
		return 0, "", false
	})
	return srv
}

// Person has optional members (omitempty) and a keyword OpenAI's strict
// mode does not take (minLength).
type Person struct {
	Name  string `json:"name" jsonschema:"minLength=2"`
	Nick  string `json:"nick,omitempty"`
	Age   int    `json:"age,omitempty" jsonschema:"minimum=0"`
	Email string `json:"email,omitempty" jsonschema:"format=email"`
}

func (h Harness) testNativeSchemaIsNeverRefusedByAStrictServer(t *testing.T) {
	contracts := wiretest.Contracts(t, "../native/testdata/contracts")
	contracts["Person"] = wiretest.SchemaOf[Person](t)
	t.Run("the server refuses what the adapter sent before lowering", func(t *testing.T) {
		_, raw, _ := openaiwire.InlineRoot(contracts["Person"])
		b, _ := json.Marshal(raw)
		if wiretest.OpenAIStrict(b) == nil {
			t.Fatal("the strict rules take a schema with an optional member")
		}
	})
	for name, c := range contracts {
		t.Run(name+" is taken", func(t *testing.T) {
			h.sentAsReported(t, strictServer(t, okReply(Completion(`{}`))), "gpt-4o-mini", native.OpenAI, c)
		})
	}
}

func (h Harness) testNativeSchemaNullsForOptionalMembersPassTheContract(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		name := "generated"
		if streamed {
			name = "streamed"
		}
		t.Run(name, func(t *testing.T) {
			srv := strictServer(t, okReply(Completion(`{"name":"Ada","nick":null,"age":null,"email":null}`)))
			m := agent.Model(h.New(srv.URL, "gpt-4o-mini", WithNativeSchema(native.OpenAI)))
			if !streamed {
				m = agent.ModelFunc(m.Generate) // no GenerateStream: the agent calls Generate
			}
			p, res, err := agent.RunTyped[Person](context.Background(), agent.New(m, agent.WithOutputRetries(1)), "who?")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := p, (Person{Name: "Ada"}); got != want {
				t.Errorf("answer = %+v, want %+v", got, want)
			}
			if len(res.Attempts) != 1 || res.Attempts[0].Outcome != enforce.OutcomePassed {
				t.Fatalf("rows = %+v, want one passed", res.Attempts)
			}
			// On the record: the row names each member read as left out.
			if rb := res.Attempts[0].ReadBack; rb == nil || !slices.Equal(rb.Members, []string{"/nick", "/age", "/email"}) {
				t.Errorf("row readBack = %+v, want /nick, /age, /email", rb)
			}
			if got, want := res.Output, `{"name":"Ada"}`; got != want {
				t.Errorf("output = %s, want %s: the nulls read back as left out", got, want)
			}
			sent, _ := DecodeRequest(t, srv.requests()[0])
			var schema struct {
				Required []string `json:"required"`
			}
			json.Unmarshal(sent.ResponseFormat.JSONSchema.Schema, &schema)
			if !slices.Equal(schema.Required, []string{"name", "nick", "age", "email"}) || !*sent.ResponseFormat.JSONSchema.Strict {
				t.Errorf("sent required %v strict %v, want every member, strict", schema.Required, *sent.ResponseFormat.JSONSchema.Strict)
			}
		})
	}
}

func (h Harness) testNativeSchemaADroppedKeywordIsStillJudged(t *testing.T) {
	srv := strictServer(t,
		okReply(Completion(`{"name":"A","nick":null,"age":null,"email":null}`)), // minLength 2, which OpenAI does not enforce
		okReply(Completion(`{"name":"Ada","nick":null,"age":7,"email":null}`)),
	)
	p, res, err := agent.RunTyped[Person](context.Background(),
		agent.New(h.New(srv.URL, "gpt-4o-mini", WithNativeSchema(native.OpenAI)), agent.WithOutputRetries(1)), "who?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p, (Person{Name: "Ada", Age: 7}); got != want {
		t.Errorf("answer = %+v, want %+v", got, want)
	}
	var rows []string
	for _, r := range res.Attempts {
		rows = append(rows, string(r.Outcome)+" "+r.Path)
	}
	if got, want := rows, []string{"retried /name", "passed "}; !slices.Equal(got, want) {
		t.Errorf("rows = %q, want %q", got, want)
	}
	if rb := res.Attempts[1].ReadBack; rb == nil || !slices.Equal(rb.Members, []string{"/nick", "/email"}) {
		t.Errorf("second row readBack = %+v, want /nick, /email", rb)
	}
	report, _ := openaiwire.NativeReport(wiretest.SchemaOf[Person](t), native.OpenAI)
	for _, k := range report.Keywords {
		if k.Name == "minLength" && k.Enforced {
			t.Errorf("the report says OpenAI enforces minLength")
		}
	}
	// The correction speaks of the answer as read back: no word of the
	// nulls the provider had to write.
	second, _ := DecodeRequest(t, srv.requests()[1])
	if last := string(second.Messages[len(second.Messages)-1].Content); strings.Contains(last, "null") {
		t.Errorf("corrective message mentions null: %s", last)
	}
}

func (h Harness) testWithNativeSchemaRefusesAnUnknownProfile(t *testing.T) {
	_, err := h.New("http://127.0.0.1:1", "gpt-4o-mini", WithNativeSchema("gpt")).Generate(context.Background(), agent.Request{})
	if !errors.Is(err, agent.ErrInvalidOption) {
		t.Errorf("err = %v, want agent.ErrInvalidOption", err)
	}
}

func (h Harness) testWithNativeSchemaForALocalServerSendsItsSubset(t *testing.T) {
	srv := newFakeServer(t, okReply(Completion(`{"name":"Ada"}`)))
	req := agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "who?"}}, OutputSchema: wiretest.SchemaOf[Person](t)}
	resp, err := h.New(srv.URL, "qwen3", WithNativeSchema(native.VLLM)).Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != `{"name":"Ada"}` || resp.ReadBack != nil {
		t.Errorf("answer %s, read back %q; want it as the server wrote it", resp.Message.Content, resp.ReadBack)
	}
	got, _ := DecodeRequest(t, srv.requests()[0])
	var schema struct {
		Required   []string `json:"required"`
		Properties struct {
			Name struct {
				MinLength int `json:"minLength"`
			} `json:"name"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(got.ResponseFormat.JSONSchema.Schema, &schema); err != nil {
		t.Fatal(err)
	}
	// vLLM takes optional members and minLength: nothing nullable, nothing left out.
	if !slices.Equal(schema.Required, []string{"name"}) || schema.Properties.Name.MinLength != 2 {
		t.Errorf("schema = %s, want name alone required and its minLength kept", got.ResponseFormat.JSONSchema.Schema)
	}
}

// sentAsReported sends contract c over srv with WithNativeSchema(p) and
// checks that the server took it and that the request carried it as
// NativeReport says: no response_format for mode none, else one whose
// strict flag is the report's.
func (h Harness) sentAsReported(t *testing.T, srv *fakeServer, model string, p native.Profile, c json.RawMessage) {
	t.Helper()
	req := agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "go"}}, OutputSchema: c}
	if _, err := h.New(srv.URL, model, WithNativeSchema(p)).Generate(context.Background(), req); err != nil {
		var pe *agent.ProviderError
		if errors.As(err, &pe) && pe.HTTPStatus == http.StatusBadRequest {
			t.Fatalf("refused: %s", pe.Message)
		}
		t.Fatal(err)
	}
	report, err := openaiwire.NativeReport(c, p)
	if err != nil {
		t.Fatal(err)
	}
	got, keys := DecodeRequest(t, srv.requests()[0])
	switch report.Mode {
	case native.ModeNone:
		if keys["response_format"] != nil {
			t.Errorf("mode none, but response_format = %s", keys["response_format"])
		}
	default:
		if got.ResponseFormat == nil || *got.ResponseFormat.JSONSchema.Strict != (report.Mode == native.ModeStrict) {
			t.Errorf("mode %s, but response_format = %s", report.Mode, keys["response_format"])
		}
	}
}
