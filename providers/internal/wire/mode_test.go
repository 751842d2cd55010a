package wire

import (
	"errors"
	"net/http"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/native"
)

func TestUnsupportedNamesTheModeA400Refuses(t *testing.T) {
	nativeWords, toolWords := []string{"response_format"}, []string{"tools"}
	tests := []struct {
		name   string
		status int
		text   string
		want   agent.OutputMode
	}{
		{"a 400 naming the response format", http.StatusBadRequest, "Invalid RESPONSE_FORMAT", agent.ModeNative},
		{"a 422 naming tools", http.StatusUnprocessableEntity, "tools are not supported", agent.ModeTool},
		{"both: the response format first", http.StatusBadRequest, "tools with response_format", agent.ModeNative},
		{"a 400 naming neither", http.StatusBadRequest, "max_tokens", ""},
		{"a 500 naming the response format", http.StatusInternalServerError, "response_format", ""},
		{"a 404", http.StatusNotFound, "tools", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pe := &agent.ProviderError{HTTPStatus: tt.status}
			if err := Unsupported(pe, tt.text, nativeWords, toolWords); err != error(pe) || pe.Unsupported != tt.want {
				t.Errorf("Unsupported = %q (err %v), want %q on the same error", pe.Unsupported, err, tt.want)
			}
		})
	}
	t.Run("an error that is no ProviderError is returned as it is", func(t *testing.T) {
		e := errors.New("x")
		if Unsupported(e, "response_format", nativeWords, toolWords) != e {
			t.Error("the error changed")
		}
	})
}

func TestModesSaysNativeOnlyForAnExactLowering(t *testing.T) {
	lower := func(contract string) *native.Lowering {
		l, err := native.Lower([]byte(contract), native.OpenAI)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	tests := []struct {
		name string
		l    *native.Lowering
		err  error
		want agent.Modes
	}{
		{"none configured", nil, nil, agent.Modes{Tools: true, Why: "no native mode configured (WithX)"}},
		{"a lowering that failed", nil, errors.New("bad"), agent.Modes{Tools: true, Why: "bad"}},
		{"exact", lower(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`), nil,
			agent.Modes{Native: true, Strict: true, Tools: true, Why: "openai: every keyword of the contract enforced natively"}},
		{"strict, a keyword left out", lower(`{"type":"object","properties":{"a":{"type":"string","minLength":1}},"required":["a"]}`), nil,
			agent.Modes{Strict: true, Tools: true, Why: "openai: 1 of 4 keywords left out natively (minLength at /properties/a)"}},
		{"non-strict", lower(`{"type":"object","additionalProperties":{"type":"string"}}`), nil,
			agent.Modes{Tools: true, Why: "openai: the contract is not sent strict (the root: additionalProperties as a schema (a map))"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Modes(tt.l, tt.err, "WithX"); got != tt.want {
				t.Errorf("Modes = %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
