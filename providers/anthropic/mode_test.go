package anthropic

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

type City struct {
	Name string `json:"name"`
}

func TestOutputModesAndARefusedModeThroughTheWire(t *testing.T) {
	city := wiretest.SchemaOf[City](t)
	if got := New(newFakeServer(t).client(), "claude-sonnet-4-5", WithNativeSchema()).OutputModes(city); !got.Native || !got.Tools {
		t.Errorf("with WithNativeSchema: %+v, want native (exact) and tools", got)
	}
	if got := New(newFakeServer(t).client(), "claude-sonnet-4-5").OutputModes(city); got.Native || !got.Tools {
		t.Errorf("without: %+v, want tools alone", got)
	}
	for _, tt := range []struct {
		msg  string
		want agent.OutputMode
	}{
		{"output_config.format: structured outputs are not supported for this model", agent.ModeNative},
		{"tools.0.custom.input_schema: JSON schema is invalid", agent.ModeTool},
		{"max_tokens: too large", ""},
	} {
		srv := newFakeServer(t, reply{Status: http.StatusBadRequest, Body: errorBody("invalid_request_error", tt.msg)})
		_, err := New(srv.client(), "claude-sonnet-4-5").Generate(context.Background(), agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "go"}}})
		var pe *agent.ProviderError
		if !errors.As(err, &pe) || pe.Unsupported != tt.want {
			t.Errorf("%q: err = %v, want Unsupported %q", tt.msg, err, tt.want)
		}
	}
}
