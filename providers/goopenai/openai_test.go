package goopenai

import (
	"context"
	"errors"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/openaiwiretest"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
	sdk "github.com/sashabaranov/go-openai"
)

// isSDKError reports go-openai's error: *openai.APIError for an error
// body it decoded, *openai.RequestError for one it did not.
func isSDKError(err error) bool {
	var apiErr *sdk.APIError
	var reqErr *sdk.RequestError
	return errors.As(err, &apiErr) || errors.As(err, &reqErr)
}

func TestAnAPIErrorUnwrapsToTheSDKError(t *testing.T) {
	srv := newFakeServer(t, reply{Status: 400, Body: openaiwiretest.ErrorBody("invalid_request_error", "bad")})
	_, err := New(srv.client(), "gpt-4o-mini").Generate(context.Background(), agent.Request{})
	var apiErr *sdk.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want it to unwrap to *openai.APIError", err)
	}
	if got, want := apiErr.Type, "invalid_request_error"; got != want {
		t.Errorf("Type = %q, want %q", got, want)
	}
}

type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
}

func TestWithParamsAdjustsTheRequest(t *testing.T) {
	srv := newFakeServer(t, okReply(openaiwiretest.PlainCompletion))
	m := New(srv.client(), "gpt-4o-mini", WithParams(func(p *sdk.ChatCompletionRequest) {
		p.Temperature = 0.25
		p.ToolChoice = "none"
	}))
	if _, err := m.Generate(context.Background(), agent.Request{}); err != nil {
		t.Fatal(err)
	}
	got, keys := openaiwiretest.DecodeRequest(t, srv.requests()[0])
	if got.Temperature == nil || *got.Temperature != 0.25 {
		t.Errorf("temperature = %v, want 0.25", got.Temperature)
	}
	if got, want := string(keys["tool_choice"]), `"none"`; got != want {
		t.Errorf("tool_choice = %s, want %s", got, want)
	}
}

func TestInvalidConfigurationFailsEveryCall(t *testing.T) {
	client := clientAt("http://127.0.0.1:1")
	wiretest.InvalidOptions(t, []wiretest.Configured{
		{Name: "an empty model name", Model: New(client, "")},
		{Name: "a nil params func", Model: New(client, "gpt-4o-mini", WithParams(nil))},
	})
}

func TestModelNameIsTheModelGivenToNew(t *testing.T) {
	m := New(sdk.DefaultConfig("k"), "gpt-4o-mini")
	if got := m.ModelName(); got != "gpt-4o-mini" {
		t.Errorf("ModelName() = %q, want gpt-4o-mini", got)
	}
	if got := m.ProviderName(); got != "openai" {
		t.Errorf("ProviderName() = %q, want openai", got)
	}
}

// go-openai sends a nil Parameters as null, which OpenAI refuses: a tool
// that takes nothing is sent an empty object schema.
func TestAToolWithoutParametersIsSentAnEmptyObject(t *testing.T) {
	srv := newFakeServer(t, okReply(openaiwiretest.PlainCompletion))
	req := agent.Request{Messages: openaiwiretest.UserTurn.Messages, Tools: []agent.ToolSpec{{Name: "now", Description: "The time."}}}
	if _, err := New(srv.client(), "gpt-4o-mini").Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	sent, _ := openaiwiretest.DecodeRequest(t, srv.requests()[0])
	if len(sent.Tools) != 1 || string(sent.Tools[0].Function.Parameters) != `{"type":"object","properties":{}}` {
		t.Errorf("tools = %+v, want now with an empty object schema", sent.Tools)
	}
}
