package native_test

import (
	"testing"

	"github.com/enforcer-go/enforcer/providers/native"
)

func TestExactSaysWhetherTheProviderEnforcesTheWholeContract(t *testing.T) {
	tests := []struct {
		name     string
		contract string
		profile  native.Profile
		exact    bool
		why      string
	}{
		{"every keyword sent, optional members read back",
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"]}`, native.OpenAI,
			true, "openai: every keyword of the contract enforced natively"},
		{"keywords left out, the first three named",
			`{"type":"object","properties":{"a":{"type":"string","minLength":1,"maxLength":3,"pattern":"^x"},"b":{"type":"integer","minimum":0}},"required":["a","b"]}`, native.Groq,
			false, "groq: 4 of 8 keywords left out natively (minLength at /properties/a, maxLength at /properties/a, pattern at /properties/a, …)"},
		{"not sent strict",
			`{"type":"object","additionalProperties":{"type":"string"}}`, native.Mistral,
			false, "mistral: the contract is not sent strict (the root: additionalProperties as a schema (a map))"},
		{"never sent", `{"type":"object","properties":{"a":{"type":"string"}}}`, native.DeepSeek,
			false, "deepseek: the contract is not sent strict (DeepSeek takes response_format json_object only, no json_schema)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exact, why := lower(t, tt.contract, tt.profile).Report.Exact()
			if exact != tt.exact || why != tt.why {
				t.Errorf("Exact() = %v, %q\nwant %v, %q", exact, why, tt.exact, tt.why)
			}
		})
	}
}
