package native_test

import (
	"fmt"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/providers/native"
)

func TestASiblingOfARefReportedEnforcedIsEnforcedAsTheProviderReadsIt(t *testing.T) {
	// The local servers (vLLM, llama.cpp, Ollama) read a schema without
	// $schema as draft-07, where $ref replaces its siblings; a 2019-09 or
	// 2020-12 contract checks them beside it. (The hosted providers read
	// 2020-12, where a sibling keeps its force as sent.) Each answer breaks one sibling: whenever the report says
	// the provider enforces that keyword, the lowered schema, read as
	// draft-07 (enforce.CompileSchema without $schema), refuses it too.
	type sibling struct {
		pointer, keyword, answer string
	}
	const d2020 = "https://json-schema.org/draft/2020-12/schema"
	const d2019 = "https://json-schema.org/draft/2019-09/schema"
	ref := func(dialect, beside string) string {
		return fmt.Sprintf(`{"$schema":%q,"$defs":{"s":{"type":"string"}},"type":"object","properties":{"a":{"$ref":"#/$defs/s",%s}},"required":["a"],"additionalProperties":false}`, dialect, beside)
	}
	tests := []struct {
		name     string
		contract string
		breaks   sibling
	}{
		{"2020-12: maxLength beside a $ref", ref(d2020, `"maxLength":2`), sibling{"/properties/a", "maxLength", `{"a":"abc"}`}},
		{"2020-12: enum beside a $ref", ref(d2020, `"enum":["x","y"]`), sibling{"/properties/a", "enum", `{"a":"z"}`}},
		{"2019-09: pattern beside a $ref", ref(d2019, `"pattern":"^x"`), sibling{"/properties/a", "pattern", `{"a":"y"}`}},
		{"2020-12 below a draft-07 root, by its own $schema",
			`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"type":"object","properties":{"a":{"$schema":"` + d2020 + `","$ref":"#/definitions/s","maxLength":2}},"required":["a"],"additionalProperties":false}`,
			sibling{"/properties/a", "maxLength", `{"a":"abc"}`}},
	}
	for _, tt := range tests {
		contract, err := enforce.CompileSchema([]byte(tt.contract))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if contract.Check(tt.breaks.answer) == nil {
			t.Fatalf("%s: the contract passes %s", tt.name, tt.breaks.answer)
		}
		for _, p := range []native.Profile{native.VLLM, native.LlamaCpp, native.Ollama} {
			l := lower(t, tt.contract, p)
			enforced := false
			for _, k := range l.Report.Keywords {
				if k.Pointer == tt.breaks.pointer && k.Name == tt.breaks.keyword && k.Enforced {
					enforced = true
				}
			}
			if !enforced || !l.Strict() {
				continue
			}
			sent, err := enforce.CompileSchema(l.Schema)
			if err != nil {
				t.Fatalf("%s, %s: the lowered schema does not compile: %v\n%s", tt.name, p, err, l.Schema)
			}
			if sent.Check(tt.breaks.answer) == nil {
				t.Errorf("%s, %s: the report says %s at %s is enforced, but the schema sent, read as draft-07, passes %s:\n%s",
					tt.name, p, tt.breaks.keyword, tt.breaks.pointer, tt.breaks.answer, l.Schema)
			}
		}
	}
}

func TestARefBesideItsSiblingsIsLeftAsItIsWhereTheContractReadsItAlone(t *testing.T) {
	// In a draft-07 contract $ref replaces its siblings: the lowering adds
	// no check the contract does not make.
	contract := `{"definitions":{"s":{"type":"string"}},"type":"object","properties":{"a":{"$ref":"#/definitions/s","maxLength":2}},"required":["a"],"additionalProperties":false}`
	got := string(lower(t, contract, native.VLLM).Schema)
	want := `{"definitions":{"s":{"type":"string"}},"type":"object","properties":{"a":{"$ref":"#/definitions/s","maxLength":2}},"required":["a"],"additionalProperties":false}`
	if got != want {
		t.Errorf("lowered for vllm:\n got %s\nwant %s", got, want)
	}
}
