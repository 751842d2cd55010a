package openai

import (
	"context"
	"errors"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/openaiwiretest"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

func isSDKError(err error) bool {
	var apiErr *sdk.Error
	return errors.As(err, &apiErr)
}

func TestAnAPIErrorUnwrapsToTheSDKError(t *testing.T) {
	srv := newFakeServer(t, reply{Status: 400, Body: openaiwiretest.ErrorBody("invalid_request_error", "bad")})
	_, err := New(srv.client(), "gpt-4o-mini").Generate(context.Background(), agent.Request{})
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want it to unwrap to *openai.Error", err)
	}
	if got, want := apiErr.Type, "invalid_request_error"; got != want {
		t.Errorf("Type = %q, want %q", got, want)
	}
}

func TestWithClientRetriesLeavesTheSDKRetrying(t *testing.T) {
	srv := newFakeServer(t,
		reply{Status: 500, Header: map[string]string{"Retry-After-Ms": "1"}, Body: openaiwiretest.ErrorBody("server_error", "boom")},
		okReply(openaiwiretest.PlainCompletion),
	)
	m := New(srv.client(option.WithMaxRetries(1)), "gpt-4o-mini", WithClientRetries())
	if _, err := m.Generate(context.Background(), agent.Request{}); err != nil {
		t.Fatal(err)
	}
	if got := len(srv.requests()); got != 2 {
		t.Errorf("server saw %d requests, want 2", got)
	}
}

type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
}

func TestWithParamsAdjustsTheRequest(t *testing.T) {
	srv := newFakeServer(t, okReply(openaiwiretest.PlainCompletion))
	m := New(srv.client(), "gpt-4o-mini", WithParams(func(p *sdk.ChatCompletionNewParams) {
		p.Temperature = sdk.Float(0.25)
		p.ToolChoice.OfAuto = sdk.String("none")
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
	client := sdk.NewClient(option.WithAPIKey("k"), option.WithBaseURL("http://127.0.0.1:1/"))
	wiretest.InvalidOptions(t, []wiretest.Configured{
		{Name: "an empty model name", Model: New(client, "")},
		{Name: "a nil params func", Model: New(client, "gpt-4o-mini", WithParams(nil))},
	})
}

func TestModelNameIsTheModelGivenToNew(t *testing.T) {
	m := New(sdk.NewClient(option.WithAPIKey("k")), "gpt-4o-mini")
	if got := m.ModelName(); got != "gpt-4o-mini" {
		t.Errorf("ModelName() = %q, want gpt-4o-mini", got)
	}
	if got := m.ProviderName(); got != "openai" {
		t.Errorf("ProviderName() = %q, want openai", got)
	}
}
