package gemini

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
	if got := New(newFakeServer(t).client(t), "gemini-2.5-flash", WithNativeSchema()).OutputModes(city); !got.Native || !got.Tools {
		t.Errorf("with WithNativeSchema: %+v, want native (exact) and tools", got)
	}
	if got := New(newFakeServer(t).client(t), "gemini-2.5-flash").OutputModes(city); got.Native || !got.Tools {
		t.Errorf("without: %+v, want tools alone", got)
	}
	for _, tt := range []struct {
		msg  string
		want agent.OutputMode
	}{
		{"JSON mode is not enabled for models/gemini-1.0-pro: response_mime_type", agent.ModeNative},
		{"Invalid JSON payload received. Unknown name \"responseJsonSchema\"", agent.ModeNative},
		{"Function calling is not enabled for models/x: tools", agent.ModeTool},
		{"maxOutputTokens too large", ""},
	} {
		srv := newFakeServer(t, reply{Status: http.StatusBadRequest, Body: errorBody(400, "INVALID_ARGUMENT", tt.msg)})
		_, err := New(srv.client(t), "gemini-2.5-flash").Generate(context.Background(), agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "go"}}})
		var pe *agent.ProviderError
		if !errors.As(err, &pe) || pe.Unsupported != tt.want {
			t.Errorf("%q: err = %v, want Unsupported %q", tt.msg, err, tt.want)
		}
	}
}
