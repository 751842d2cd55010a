package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
	"github.com/enforcer-go/enforcer/providers/native"
)

// strictServer is a Messages API server that answers 400, as Anthropic
// does, for an output format its documented rules refuse.
func strictServer(t *testing.T, script ...reply) *fakeServer {
	srv := newFakeServer(t, script...)
	srv.Refuses(func(body []byte) (int, string, bool) {
		var req struct {
			OutputConfig *struct {
				Format struct {
					Schema json.RawMessage `json:"schema"`
				} `json:"format"`
			} `json:"output_config"`
		}
		if json.Unmarshal(body, &req) != nil || req.OutputConfig == nil {
			return 0, "", false
		}
		if err := wiretest.AnthropicFormat(req.OutputConfig.Format.Schema); err != nil {
			return http.StatusBadRequest, errorBody("invalid_request_error", "output_config.format.schema: "+err.Error()), true
		}
		return 0, "", false
	})
	return srv
}

// Person has optional members and keywords Anthropic's structured outputs
// do not take (maxLength, minimum).
type Person struct {
	Name string `json:"name" jsonschema:"maxLength=5"`
	Nick string `json:"nick,omitempty"`
	Age  int    `json:"age,omitempty" jsonschema:"minimum=0"`
}

func TestNativeSchemaIsNeverRefusedByAStrictServer(t *testing.T) {
	contracts := wiretest.Contracts(t, "../native/testdata/contracts")
	contracts["Person"] = wiretest.SchemaOf[Person](t)
	t.Run("the server refuses what the adapter sent before lowering", func(t *testing.T) {
		raw, _ := inlineRoot(contracts["Person"])
		b, _ := json.Marshal(raw)
		if wiretest.AnthropicFormat(b) == nil {
			t.Fatal("the rules take a schema with maxLength")
		}
	})
	for name, c := range contracts {
		t.Run(name+" is taken", func(t *testing.T) {
			srv := strictServer(t, okReply(message(`{}`)))
			req := agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "go"}}, OutputSchema: c}
			if _, err := New(srv.client(), "claude-sonnet-4-5", WithNativeSchema()).Generate(context.Background(), req); err != nil {
				var pe *agent.ProviderError
				if errors.As(err, &pe) && pe.HTTPStatus == http.StatusBadRequest {
					t.Fatalf("refused: %s", pe.Message)
				}
				t.Fatal(err)
			}
			report, err := NativeReport(c)
			if err != nil {
				t.Fatal(err)
			}
			_, keys := decodeRequest(t, srv.requests()[0])
			if sent := keys["output_config"] != nil; sent != (report.Mode == native.ModeStrict) {
				t.Errorf("mode %s, but output_config = %s", report.Mode, keys["output_config"])
			}
		})
	}
}

func TestNativeSchemaOptionalMembersLeftOutPassTheContract(t *testing.T) {
	srv := strictServer(t, okReply(message(`{"name":"Ada"}`)))
	p, res, err := agent.RunTyped[Person](context.Background(),
		agent.New(New(srv.client(), "claude-sonnet-4-5", WithNativeSchema()), agent.WithOutputRetries(1)), "who?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p, (Person{Name: "Ada"}); got != want {
		t.Errorf("answer = %+v, want %+v", got, want)
	}
	if len(res.Attempts) != 1 || res.Attempts[0].Outcome != enforce.OutcomePassed {
		t.Errorf("rows = %+v, want one passed", res.Attempts)
	}
	report, _ := NativeReport(wiretest.SchemaOf[Person](t))
	if report.Mode != native.ModeStrict || report.Nullable != nil {
		t.Errorf("report mode %s, nullable %q; want strict with optional members kept optional", report.Mode, report.Nullable)
	}
}

func TestNativeSchemaADroppedKeywordIsStillJudged(t *testing.T) {
	srv := strictServer(t,
		okReply(message(`{"name":"Adalbert","age":-1}`)), // maxLength 5, which Anthropic does not enforce: the answer is cut there
		okReply(message(`{"name":"Ada","age":7}`)),
	)
	p, res, err := agent.RunTyped[Person](context.Background(),
		agent.New(New(srv.client(), "claude-sonnet-4-5", WithNativeSchema()), agent.WithOutputRetries(1)), "who?")
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
	report, _ := NativeReport(wiretest.SchemaOf[Person](t))
	var dropped []string
	for _, k := range report.Keywords {
		if !k.Enforced {
			dropped = append(dropped, k.Pointer+" "+k.Name)
		}
	}
	if want := []string{"/properties/age minimum", "/properties/name maxLength"}; !slices.Equal(dropped, want) {
		t.Errorf("enforcer-only keywords %q, want %q", dropped, want)
	}
}
