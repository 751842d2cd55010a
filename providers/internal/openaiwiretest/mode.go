package openaiwiretest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
	"github.com/enforcer-go/enforcer/providers/native"
)

// City lowers exactly for every profile but DeepSeek: nothing is left
// out.
type City struct {
	Name       string `json:"name"`
	Population int    `json:"population"`
}

// modeServer answers 400 for any json_schema response format, as Groq
// does for a model without structured outputs, with the message Groq
// sends and no param; requests without one get the script.
func modeServer(t *testing.T, script ...reply) *fakeServer {
	srv := newFakeServer(t, script...)
	srv.Refuses(func(body []byte) (int, string, bool) {
		var req WireRequest
		if json.Unmarshal(body, &req) != nil || req.ResponseFormat == nil || req.ResponseFormat.Type != "json_schema" {
			return 0, "", false
		}
		return http.StatusBadRequest, `{"error":{"message":"This model does not support response format ` + "`json_schema`" + `. See supported models at https://console.groq.com/docs/structured-outputs#supported-models","type":"invalid_request_error"}}`, true
	})
	return srv
}

func (h Harness) testAutoOutputModeThroughTheWire(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		name := "generated"
		if streamed {
			name = "streamed"
		}
		t.Run(name+": a model refusing its native mode is moved to tool output", func(t *testing.T) {
			srv := modeServer(t, okReply(toolCall("call_1", "final_result", `{"name":"Lyon","population":520000}`)))
			var m agent.Model = h.New(srv.URL, "llama-3.1-8b-instant", WithNativeSchema(native.Groq))
			if !streamed {
				m = reporter{m.(Model)} // Generate only, still saying its modes
			}
			c, res, err := agent.RunTyped[City](context.Background(), agent.New(m, agent.WithAutoOutputMode("final_result"), agent.WithOutputRetries(1)), "Lyon?")
			if err != nil {
				t.Fatal(err)
			}
			if c != (City{"Lyon", 520000}) {
				t.Errorf("answer = %+v", c)
			}
			if len(res.Modes) != 2 || res.Modes[0].Mode != agent.ModeNative || res.Modes[1].Mode != agent.ModeTool || res.Modes[1].Unsupported != agent.ModeNative {
				t.Errorf("Modes = %+v, want native, then tool after native was refused", res.Modes)
			}
			if got, want := res.Modes[0].Why, "groq: every keyword of the contract enforced natively"; got != want {
				t.Errorf("first choice's why = %q, want %q", got, want)
			}
			if len(res.Attempts) != 1 || res.Attempts[0].Outcome != enforce.OutcomePassed || res.Attempts[0].Mode != "tool" {
				t.Errorf("rows = %+v, want one passed in tool mode", res.Attempts)
			}
			reqs := srv.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want the refused one and its resend", len(reqs))
			}
			second, keys := DecodeRequest(t, reqs[1])
			if keys["response_format"] != nil || len(second.Tools) != 1 || second.Tools[0].Function.Name != "final_result" || string(keys["tool_choice"]) != `"required"` {
				t.Errorf("resent with response_format %s, tools %+v, tool_choice %s; want the output tool, required, and no response format",
					keys["response_format"], second.Tools, keys["tool_choice"])
			}
		})
	}
	t.Run("DeepSeek's profile sends no schema: tool output from the start", func(t *testing.T) {
		srv := profileServer(t, wiretest.DeepSeekSchema, false, okReply(toolCall("call_1", "final_result", `{"name":"Lyon","population":520000}`)))
		m := h.New(srv.URL, "deepseek-chat", WithNativeSchema(native.DeepSeek))
		_, res, err := agent.RunTyped[City](context.Background(), agent.New(m, agent.WithAutoOutputMode("final_result")), "Lyon?")
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Modes) != 1 || res.Modes[0].Mode != agent.ModeTool || !strings.Contains(res.Modes[0].Why, "json_object only") {
			t.Errorf("Modes = %+v, want tool, saying DeepSeek takes no json_schema", res.Modes)
		}
		if n := len(srv.requests()); n != 1 {
			t.Errorf("%d requests, want 1: nothing refused", n)
		}
	})
}

// reporter is a Model without GenerateStream that still says its modes.
type reporter struct{ m Model }

func (r reporter) Generate(ctx context.Context, req agent.Request) (agent.Response, error) {
	return r.m.Generate(ctx, req)
}

func (r reporter) OutputModes(contract json.RawMessage) agent.Modes { return r.m.OutputModes(contract) }

func (h Harness) testOutputModesSaysWhatTheEndpointTakes(t *testing.T) {
	person := wiretest.SchemaOf[Person](t)
	tests := []struct {
		name     string
		opts     []Option
		want     agent.Modes
		contract []byte
	}{
		{"no native mode", nil,
			agent.Modes{Tools: true, Why: "no native mode configured (WithNativeSchema)"}, wiretest.SchemaOf[City](t)},
		{"a contract lowered exactly", []Option{WithNativeSchema(native.OpenAI)},
			agent.Modes{Native: true, Strict: true, Tools: true, Why: "openai: every keyword of the contract enforced natively"}, wiretest.SchemaOf[City](t)},
		{"keywords left out", []Option{WithNativeSchema(native.OpenAI)},
			agent.Modes{Strict: true, Tools: true, Why: "openai: 1 of 10 keywords left out natively (minLength at /properties/name)"}, person},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := h.New(newFakeServer(t).URL, "m", tt.opts...).OutputModes(tt.contract); got != tt.want {
				t.Errorf("OutputModes = %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func (h Harness) testARefusedOutputModeIsOnTheProviderError(t *testing.T) {
	tests := []struct {
		name string
		body string
		want agent.OutputMode
	}{
		{"param response_format", `{"error":{"message":"Invalid schema","type":"invalid_request_error","param":"response_format"}}`, agent.ModeNative},
		{"param tools", `{"error":{"message":"Invalid tool","type":"invalid_request_error","param":"tools"}}`, agent.ModeTool},
		{"a message naming tool choice", `{"error":{"message":"tool_choice is not supported for this model","type":"invalid_request_error"}}`, agent.ModeTool},
		{"another 400", `{"error":{"message":"max_tokens is too large","type":"invalid_request_error","param":"max_tokens"}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, reply{Status: http.StatusBadRequest, Body: tt.body})
			_, err := agent.Model(h.New(srv.URL, "m")).Generate(context.Background(), agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "go"}}})
			var pe *agent.ProviderError
			if !errors.As(err, &pe) || pe.Unsupported != tt.want {
				t.Errorf("err = %v (Unsupported %q), want Unsupported %q", err, pe.Unsupported, tt.want)
			}
		})
	}
	t.Run("a 5xx naming response_format is no refusal of the mode", func(t *testing.T) {
		srv := newFakeServer(t, reply{Status: http.StatusInternalServerError, Body: `{"error":{"message":"response_format backend down","type":"server_error"}}`})
		_, err := h.New(srv.URL, "m").Generate(context.Background(), agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "go"}}})
		var pe *agent.ProviderError
		if !errors.As(err, &pe) || pe.Unsupported != "" {
			t.Errorf("err = %v, want a ProviderError with no Unsupported", err)
		}
	})
}

func (h Harness) testAReasoningModelsModesOnAServerThatIgnoresTheFormat(t *testing.T) {
	city := wiretest.SchemaOf[City](t)
	for _, tt := range []struct {
		profile native.Profile
		native  bool // a reasoning model's answer still constrained
	}{{native.Ollama, false}, {native.LlamaCpp, false}, {native.VLLM, true}, {native.OpenAI, true}} {
		t.Run(string(tt.profile), func(t *testing.T) {
			plain := h.New(newFakeServer(t).URL, "m", WithNativeSchema(tt.profile)).OutputModes(city)
			got := h.New(newFakeServer(t).URL, "m", WithNativeSchema(tt.profile), WithReasoning()).OutputModes(city)
			if !plain.Native || got.Native != tt.native || got.Strict != tt.native || !got.Tools {
				t.Errorf("OutputModes = %+v, without WithReasoning %+v; want native %v with it", got, plain, tt.native)
			}
			if !tt.native && !strings.Contains(got.Why, "the model reasons") {
				t.Errorf("Why = %q, want it to say the model reasons", got.Why)
			}
		})
	}

	t.Run("auto mode sends the output tool, and Result.Modes says why", func(t *testing.T) {
		srv := newFakeServer(t, okReply(toolCall("call_1", "final_result", `{"name":"Lyon","population":520000}`)))
		m := h.New(srv.URL, "qwen3:8b", WithNativeSchema(native.Ollama), WithReasoning())
		c, res, err := agent.RunTyped[City](context.Background(), agent.New(m, agent.WithAutoOutputMode("final_result")), "Lyon?")
		if err != nil {
			t.Fatal(err)
		}
		if c != (City{"Lyon", 520000}) {
			t.Errorf("answer = %+v", c)
		}
		if len(res.Modes) != 1 || res.Modes[0].Mode != agent.ModeTool || !strings.Contains(res.Modes[0].Why, "ollama/ollama#10538") {
			t.Errorf("Modes = %+v, want tool, saying Ollama leaves a thinking model's answer unconstrained", res.Modes)
		}
		req, keys := DecodeRequest(t, srv.requests()[0])
		if keys["response_format"] != nil || len(req.Tools) != 1 {
			t.Errorf("sent response_format %s and tools %+v; want the output tool alone", keys["response_format"], req.Tools)
		}
	})
}
