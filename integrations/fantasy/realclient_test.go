//go:build !enforcer_workspace

// The tests through fantasy's own OpenAI client. fantasy v0.41.2's
// OpenAI provider is built against openai-go v3.50.0, and the
// repository's workspace selects v3.98.0 (providers/openai), which it
// does not compile against: the test command (internal/testall) sets
// the tag enforcer_workspace and leaves these files out, and CI runs
// them with the module alone (GOWORK=off), as a user's go.mod builds
// them.

package fantasy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	charm "charm.land/fantasy"
	"charm.land/fantasy/providers/openai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/fnv"
	"github.com/enforcer-go/enforcer/integrations/fantasy"
	"github.com/enforcer-go/enforcer/integrations/internal/gluetest"
)

// fantasyOpenAI is fantasy's own OpenAI provider's language model (its
// chat completions client, openai-go underneath) pointed at url: the
// client a fantasy program runs. mode, when not "", is its object mode.
func fantasyOpenAI(t testing.TB, url string, mode charm.ObjectMode) charm.LanguageModel {
	t.Helper()
	opts := []openai.Option{openai.WithBaseURL(url), openai.WithAPIKey("k")}
	if mode != "" {
		opts = append(opts, openai.WithObjectMode(mode))
	}
	p, err := openai.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	lm, err := p.LanguageModel(context.Background(), "m")
	if err != nil {
		t.Fatal(err)
	}
	return lm
}

// streamed is a reply streamed as content pieces, then a chunk with the
// finish reason and one with usage alone, as OpenAI sends it with
// include_usage.
func streamed(in, out int, pieces ...string) gluetest.Reply {
	var evs []string
	for _, p := range pieces {
		evs = append(evs, gluetest.Content(p))
	}
	evs = append(evs, gluetest.Delta(`{}`, "stop"),
		fmt.Sprintf(`{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, in, out, in+out))
	return gluetest.Reply{Events: evs}
}

// messages is the chat messages of a request the server saw.
func messages(t *testing.T, req map[string]any) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range req["messages"].([]any) {
		out = append(out, m.(map[string]any))
	}
	return out
}

// wantCorrected checks the request the server saw after a failing
// answer: that answer as the assistant's, then the corrective turn as
// the user's, the one whose hash is on the retried row.
func wantCorrected(t *testing.T, req map[string]any, failed string, row enforce.Attempt) {
	t.Helper()
	msgs := messages(t, req)
	n := len(msgs)
	if n < 2 {
		t.Fatalf("the corrected request has %d messages", n)
	}
	if got, want := [2]any{msgs[n-2]["role"], msgs[n-2]["content"]}, [2]any{"assistant", failed}; got != want {
		t.Errorf("before the correction: %v, want %v", got, want)
	}
	content, _ := msgs[n-1]["content"].(string)
	if msgs[n-1]["role"] != "user" || fnv.Hex32a(content) != row.CorrectiveMessageHash {
		t.Errorf("last message %v: want the user's correction, hash %s", msgs[n-1], row.CorrectiveMessageHash)
	}
}

func TestAFailingAnswerIsCorrectedThroughFantasysOpenAIClient(t *testing.T) {
	for _, tt := range []struct {
		name          string
		failing, next gluetest.Reply
		model         func(*fantasy.Model) agent.Model
		failed        string
	}{
		{"generated", gluetest.Reply{Body: gluetest.Completion(fenced, 10, 3)}, gluetest.Reply{Body: gluetest.Completion(valid, 12, 4)},
			func(m *fantasy.Model) agent.Model { return agent.ModelFunc(m.Generate) }, fenced},
		{"streamed, cut at its first byte", streamed(10, 3, "```json\n", `{"city": "Paris", "tempC": 21}`, "\n```"), streamed(12, 4, valid),
			func(m *fantasy.Model) agent.Model { return m }, "`"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := gluetest.NewServer(t, tt.failing, tt.next)
			m := fantasy.NewModel(fantasyOpenAI(t, srv.URL, ""), charm.Call{})
			a := agent.New(tt.model(m), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2))
			w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			if w != (Weather{City: "Paris", TempC: 21}) {
				t.Errorf("answer = %+v", w)
			}
			if len(res.Attempts) != 2 || res.Attempts[0].Stage != enforce.StageJSONParse || res.Attempts[1].Outcome != enforce.OutcomePassed {
				t.Fatalf("rows = %+v, want a json-parse failure, then a pass", res.Attempts)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("the server saw %d requests, want 2", len(reqs))
			}
			wantCorrected(t, reqs[1], tt.failed, res.Attempts[0])
			// Usage is every call's: the one that failed and the one
			// that passed; a stream cut before its usage came has none.
			want := agent.Usage{InputTokens: 22, OutputTokens: 7}
			if tt.failed == "`" {
				want = agent.Usage{InputTokens: 12, OutputTokens: 4}
			}
			if got := res.Usage; got != want {
				t.Errorf("usage = %+v, want %+v", got, want)
			}
		})
	}
}

// A doomed answer streamed without end is cut where it is doomed: the
// run ends, and the server's stream with it (fantasy's streams have no
// Close; the request's ctx ends it).
func TestADoomedStreamIsCutThroughFantasysOpenAIClient(t *testing.T) {
	srv := gluetest.NewServer(t,
		gluetest.Reply{Events: []string{gluetest.Content(`{"city": `), gluetest.Content(`5`)}, Endless: gluetest.Content(`, "tempC": 21`)},
		streamed(3, 2, valid))
	m := fantasy.NewModel(fantasyOpenAI(t, srv.URL, ""), charm.Call{})
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1))
	_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	row := res.Attempts[0]
	if row.Cut == nil || row.Path != "/city" {
		t.Fatalf("first row %+v, want one cut at /city", row)
	}
	if n := srv.Sent(0); n >= gluetest.MaxEndless {
		t.Errorf("the client read all %d events", n)
	}
	wantCorrected(t, srv.Requests()[1], `{"city": 5,`, row)
}

func TestARateLimitAndAnOverloadAreRetriedThroughFantasysOpenAIClient(t *testing.T) {
	lm := func(url string) *fantasy.Model { return fantasy.NewModel(fantasyOpenAI(t, url, ""), charm.Call{}) }
	t.Run("generated", func(t *testing.T) {
		gluetest.RetriesRateLimitAndOverload(t, fantasy.System,
			func(url string) agent.Model { return agent.ModelFunc(lm(url).Generate) },
			gluetest.Reply{Body: gluetest.Completion("Sunny.", 10, 3)}, "Sunny.")
	})
	t.Run("streamed", func(t *testing.T) {
		gluetest.RetriesRateLimitAndOverload(t, fantasy.System,
			func(url string) agent.Model { return lm(url) },
			streamed(10, 3, "Sunny."), "Sunny.")
	})
	t.Run("the 429's Retry-After is read from fantasy's error", func(t *testing.T) {
		limited := gluetest.Reply{Status: 429, Header: map[string]string{"Retry-After": "3"}, Body: gluetest.Error("rate_limit_exceeded", "slow down")}
		for _, tt := range []struct {
			model func(*fantasy.Model) agent.Model
			ok    gluetest.Reply
		}{
			{func(m *fantasy.Model) agent.Model { return agent.ModelFunc(m.Generate) }, gluetest.Reply{Body: gluetest.Completion("Sunny.", 1, 1)}},
			{func(m *fantasy.Model) agent.Model { return m }, streamed(1, 1, "Sunny.")},
		} {
			srv := gluetest.NewServer(t, limited, tt.ok)
			model := tt.model
			var asked []time.Duration
			policy := agent.RetryPolicy{Backoff: func(_ int, err error) time.Duration {
				var pe *agent.ProviderError
				if errors.As(err, &pe) {
					asked = append(asked, pe.RetryAfter)
				}
				return 0
			}}
			if _, err := agent.New(model(lm(srv.URL)), agent.WithModelRetry(policy)).Run(t.Context(), "Weather?"); err != nil {
				t.Fatal(err)
			}
			if len(asked) != 1 || asked[0] != 3*time.Second {
				t.Errorf("Retry-After seen by the policy: %v, want [3s]", asked)
			}
		}
	})
}

func TestAToolCallMakesARoundTripThroughFantasysOpenAIClient(t *testing.T) {
	call := `{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,` +
		`"tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\"city\":\"Paris\"}"}}]}}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`
	for _, tt := range []struct {
		name  string
		first gluetest.Reply
		last  gluetest.Reply
		model func(*fantasy.Model) agent.Model
	}{
		{"generated", gluetest.Reply{Body: call}, gluetest.Reply{Body: gluetest.Completion(valid, 9, 4)}, func(m *fantasy.Model) agent.Model { return agent.ModelFunc(m.Generate) }},
		{"streamed", gluetest.Reply{Events: []string{gluetest.CallDelta("call_1", "lookup", `{"city":`), gluetest.CallDelta("", "", `"Paris"}`), gluetest.Delta(`{}`, "tool_calls")}},
			streamed(9, 4, valid), func(m *fantasy.Model) agent.Model { return m }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := gluetest.NewServer(t, tt.first, tt.last)
			var asked []string
			lookup := agent.NewTool("lookup", "Current weather of a city.", func(_ context.Context, in struct {
				City string `json:"city"`
			}) (string, error) {
				asked = append(asked, in.City)
				return "21C", nil
			})
			m := fantasy.NewModel(fantasyOpenAI(t, srv.URL, ""), charm.Call{})
			a := agent.New(tt.model(m), agent.WithTools(lookup), agent.WithOutputSchema(weatherSchema(t)))
			if _, _, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?"); err != nil {
				t.Fatal(err)
			}
			if strings.Join(asked, ",") != "Paris" {
				t.Errorf("the tool was asked %q, want Paris", asked)
			}
			reqs := srv.Requests()
			tools, _ := reqs[0]["tools"].([]any)
			if len(tools) != 1 {
				t.Fatalf("tools sent: %v", reqs[0]["tools"])
			}
			fn := tools[0].(map[string]any)["function"].(map[string]any)
			params := fn["parameters"].(map[string]any)
			if fn["name"] != "lookup" || params["type"] != "object" || params["$ref"] != nil {
				t.Errorf("the tool sent: %v, want lookup with its parameters inlined", fn)
			}
			msgs := messages(t, reqs[1])
			last, prev := msgs[len(msgs)-1], msgs[len(msgs)-2]
			if last["role"] != "tool" || last["tool_call_id"] != "call_1" || last["content"] != "21C" {
				t.Errorf("the tool's answer sent: %v", last)
			}
			calls, _ := prev["tool_calls"].([]any)
			if len(calls) != 1 {
				t.Fatalf("the call in the history: %v", prev)
			}
			args := calls[0].(map[string]any)["function"].(map[string]any)["arguments"]
			if args != `{"city":"Paris"}` {
				t.Errorf("the call's arguments in the history = %v", args)
			}
		})
	}
}

// The output kinds through fantasy's OpenAI client, streamed: elements
// voided by a restart, a near-miss label corrected or read with
// RepairLabel, a text cut at a forbidden substring.
func TestTheOutputKindsThroughFantasysOpenAIClient(t *testing.T) {
	gluetest.OutputKinds(t, func(url string) agent.Model { return fantasy.NewModel(fantasyOpenAI(t, url, ""), charm.Call{}) })
}

// The contract sent through GenerateObject as fantasy's schema, an
// object's and an array's: what fantasy's own check accepts or refuses,
// enforcer judges and corrects.
func TestObjectAndArrayOutputThroughFantasysGenerateObject(t *testing.T) {
	type Basket struct {
		Lines []struct {
			Item string `json:"item" jsonschema:"pattern=^[a-z]+$"`
			Qty  int    `json:"qty"`
		} `json:"lines"`
	}
	basket, err := enforce.SchemaFor[Basket]()
	if err != nil {
		t.Fatal(err)
	}
	array, err := enforce.CompileSchema([]byte(`{"type":"array","items":{"type":"string","enum":["tea","jam"]},"minItems":1}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name           string
		contract       *enforce.Schema
		failing, valid string
		wantType       string
		wantPath       string
	}{
		{"an object, fantasy's check passing an answer the contract fails", basket,
			`{"lines":[{"item":"Tea!","qty":1}]}`, `{"lines":[{"item":"tea","qty":1}]}`, "object", "/lines/0/item"},
		{"an array, fantasy's check refusing it too", array, `["tea","oats"]`, `["tea","jam"]`, "array", "/1"},
	} {
		for _, mode := range []charm.ObjectMode{charm.ObjectModeAuto, charm.ObjectModeText} {
			t.Run(fmt.Sprintf("%s, mode %s", tt.name, mode), func(t *testing.T) {
				srv := gluetest.NewServer(t, gluetest.Reply{Body: gluetest.Completion(tt.failing, 8, 3)}, gluetest.Reply{Body: gluetest.Completion(tt.valid, 9, 4)})
				m := fantasy.NewObjectModel(fantasyOpenAI(t, srv.URL, mode), charm.ObjectCall{SchemaName: "answer"})
				res, err := agent.New(m, agent.WithOutputSchema(tt.contract), agent.WithOutputRetries(1)).Run(t.Context(), "Shopping?")
				if err != nil {
					t.Fatal(err)
				}
				if res.Output != tt.valid {
					t.Errorf("output = %q, want %q", res.Output, tt.valid)
				}
				if len(res.Attempts) != 2 || res.Attempts[0].Path != tt.wantPath || res.Attempts[0].Outcome != enforce.OutcomeRetried {
					t.Fatalf("rows = %+v, want a retried row at %s, then a pass", res.Attempts, tt.wantPath)
				}
				reqs := srv.Requests()
				wantCorrected(t, reqs[1], tt.failing, res.Attempts[0])
				if mode == charm.ObjectModeAuto {
					rf, _ := json.Marshal(reqs[0]["response_format"])
					var f struct {
						JSONSchema struct {
							Name   string         `json:"name"`
							Schema map[string]any `json:"schema"`
						} `json:"json_schema"`
					}
					json.Unmarshal(rf, &f)
					if f.JSONSchema.Name != "answer" || f.JSONSchema.Schema["type"] != tt.wantType || strings.Contains(string(rf), "$ref") {
						t.Errorf("response_format = %s, want the contract lowered, of type %s", rf, tt.wantType)
					}
				}
				if mode == charm.ObjectModeText && res.Usage != (agent.Usage{InputTokens: 17, OutputTokens: 7}) {
					t.Errorf("usage = %+v, want both calls'", res.Usage)
				}
			})
		}
	}
}
