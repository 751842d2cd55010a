package native_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/providers/native"
)

func lower(t *testing.T, contract string, p native.Profile) *native.Lowering {
	t.Helper()
	l, err := native.Lower([]byte(contract), p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLowerSendsWhatEachProviderTakes(t *testing.T) {
	tests := []struct {
		name     string
		contract string
		profile  native.Profile
		mode     native.Mode
		schema   string // "" with no schema sent
	}{
		{"OpenAI: an optional member is sent required and nullable, objects closed",
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer","enum":[1,2]}},"required":["a"]}`,
			native.OpenAI, native.ModeStrict,
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":["integer","null"],"enum":[1,2,null]}},"required":["a","b"],"additionalProperties":false}`},
		{"OpenAI: an optional $ref is sent as a union with null",
			`{"type":"object","properties":{"p":{"$ref":"#/$defs/P"}},"$defs":{"P":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}}}`,
			native.OpenAI, native.ModeStrict,
			`{"type":"object","properties":{"p":{"anyOf":[{"$ref":"#/$defs/P"},{"type":"null"}]}},"$defs":{"P":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"],"additionalProperties":false}},"additionalProperties":false,"required":["p"]}`},
		{"OpenAI: keywords it lacks are left out, oneOf is sent as anyOf",
			`{"type":"object","properties":{"s":{"type":"string","minLength":1,"format":"uri"},"o":{"oneOf":[{"type":"string"},{"type":"integer"}]}},"required":["s","o"],"additionalProperties":false}`,
			native.OpenAI, native.ModeStrict,
			`{"type":"object","properties":{"s":{"type":"string"},"o":{"anyOf":[{"type":"string"},{"type":"integer"}]}},"required":["s","o"],"additionalProperties":false}`},
		{"OpenAI: a map is sent non-strict",
			`{"type":"object","additionalProperties":{"type":"string"}}`,
			native.OpenAI, native.ModeNonStrict,
			`{"type":"object","additionalProperties":{"type":"string"}}`},
		{"OpenAI: an array at the root is not sent", `{"type":"array","items":{"type":"string"}}`,
			native.OpenAI, native.ModeNone, ""},
		{"Anthropic: optional members stay optional, minItems above 1 is sent as 1, bounds are left out",
			`{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer","minimum":0},"minItems":3}},"required":[]}`,
			native.Anthropic, native.ModeStrict,
			`{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"},"minItems":1}},"required":[],"additionalProperties":false}`},
		{"Anthropic: a recursive contract is not sent",
			`{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}}},"required":["kids"],"additionalProperties":false}`,
			native.Anthropic, native.ModeNone, ""},
		{"Gemini: const is sent as a one-value enum, definitions as $defs",
			`{"definitions":{"k":{"const":"x"}},"type":"object","properties":{"k":{"$ref":"#/definitions/k"}}}`,
			native.Gemini, native.ModeStrict,
			`{"$defs":{"k":{"enum":["x"]}},"type":"object","properties":{"k":{"$ref":"#/$defs/k"}}}`},
		{"OpenAI: a $ref into a keyword left out sends no schema",
			`{"type":"object","properties":{"a":{"allOf":[{"type":"string"},{"minLength":1}]},"b":{"$ref":"#/properties/a/allOf/0"}},"required":["a","b"],"additionalProperties":false}`,
			native.OpenAI, native.ModeNone, ""},
		{"OpenAI: a $ref to an anchor is not followed",
			`{"type":"object","properties":{"a":{"$ref":"#a"}},"required":["a"],"additionalProperties":false,"$defs":{"x":{"$anchor":"a","type":"string"}}}`,
			native.OpenAI, native.ModeNone, ""},
		{"llama.cpp: numeric bounds only on integers",
			`{"type":"object","properties":{"i":{"type":"integer","minimum":1},"n":{"type":"number","minimum":1}}}`,
			native.LlamaCpp, native.ModeStrict,
			`{"type":"object","properties":{"i":{"type":"integer","minimum":1},"n":{"type":"number"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := lower(t, tt.contract, tt.profile)
			if l.Report.Mode != tt.mode {
				t.Fatalf("mode %s (%s), want %s", l.Report.Mode, l.Report.Reason, tt.mode)
			}
			if got := string(l.Schema); got != tt.schema {
				t.Errorf("schema\n %s\nwant\n %s", got, tt.schema)
			}
			if (tt.mode == native.ModeStrict) != (l.Report.Reason == "") {
				t.Errorf("reason %q with mode %s", l.Report.Reason, l.Report.Mode)
			}
		})
	}
}

func TestLowerReportsEachKeyword(t *testing.T) {
	l := lower(t, `{"type":"object","properties":{"s":{"type":"string","maxLength":3},"o":{"oneOf":[{"type":"string"},{"type":"integer"}]}},"required":["s"]}`, native.OpenAI)
	var got []string
	for _, k := range l.Report.Keywords {
		by := "provider"
		if !k.Enforced {
			by = "enforcer"
		}
		got = append(got, k.Pointer+" "+k.Name+" "+by)
	}
	want := []string{
		" type provider", " required provider",
		"/properties/o oneOf enforcer",
		"/properties/o/oneOf/0 type provider", "/properties/o/oneOf/1 type provider",
		"/properties/s type provider", "/properties/s maxLength enforcer",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("keywords:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if l.Report.Dropped() != 2 || strings.Join(l.Report.Nullable, ",") != "/properties/o" {
		t.Errorf("dropped %d, nullable %q; want 2 and /properties/o", l.Report.Dropped(), l.Report.Nullable)
	}
	t.Run("a contract not sent strict enforces nothing at the provider", func(t *testing.T) {
		l := lower(t, `{"type":"object","properties":{"m":{"type":"object"}},"required":["m"]}`, native.Anthropic)
		if l.Report.Mode != native.ModeNone || l.Report.Dropped() != len(l.Report.Keywords) || l.Report.Nullable != nil {
			t.Errorf("report %+v, want mode none, every keyword enforcer's, nothing nullable", l.Report)
		}
	})
}

func TestLowerRefusesWhatIsNoContract(t *testing.T) {
	if _, err := native.Lower([]byte(`{}`), native.Profile("nope")); !errors.Is(err, native.ErrUnknownProfile) {
		t.Errorf("unknown profile: err = %v, want ErrUnknownProfile", err)
	}
	for _, bad := range []string{``, `{`, `[1]`, `"x"`, `{} {}`, strings.Repeat("[", 600) + strings.Repeat("]", 600)} {
		if _, err := native.Lower([]byte(bad), native.OpenAI); !errors.Is(err, native.ErrSchema) {
			t.Errorf("Lower(%.20q): err = %v, want ErrSchema", bad, err)
		}
	}
}

func TestLowerLeavesTheContractAlone(t *testing.T) {
	contract := `{"$ref":"#/$defs/A","$defs":{"A":{"type":"object","properties":{"a":{"type":"string"}}}}}`
	b := []byte(contract)
	for _, p := range native.Profiles {
		lower(t, contract, p)
	}
	if string(b) != contract {
		t.Errorf("contract changed to %s", b)
	}
}

// FuzzLower lowers any bytes without a crash; a contract CompileSchema
// accepts, sent strict, keeps its provider's rules.
func FuzzLower(f *testing.F) {
	f.Fuzz(func(t *testing.T, contract []byte) {
		for _, p := range native.Profiles {
			l, err := native.Lower(contract, p)
			if err != nil {
				if !errors.Is(err, native.ErrSchema) {
					t.Fatalf("%s: %v", p, err)
				}
				continue
			}
			if l.Schema != nil && !json.Valid(l.Schema) {
				t.Fatalf("%s: lowered schema %q is not JSON", p, l.Schema)
			}
		}
		if len(contract) > 4096 {
			return
		}
		if _, err := enforce.CompileSchema(contract); err != nil {
			return
		}
		for _, p := range checked {
			l, _ := native.Lower(contract, p)
			if err := sent(l, p); err != nil {
				t.Fatalf("%s refuses the lowering of %s: %v\n%s", p, contract, err, l.Schema)
			}
		}
	})
}
