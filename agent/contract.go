package agent

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/enforcer-go/enforcer/enforce"
)

// contract is what a schema adds to every request of a run: the system
// message with the contract in our words, and the schema's JSON for
// [Request.OutputSchema]. Runs share both read-only.
type contract struct {
	system string
	json   json.RawMessage
	// tools, with [WithOutputTool], are the agent's tools and the output
	// tool; json is then nil: the schema travels as the tool's parameters.
	tools []ToolSpec
	// union, for [RunUnion] in tool mode, names the members, each the
	// output tool of its answer (see union.go).
	union []string
	// asTool, with [WithAutoOutputMode], is the contract in tool mode.
	asTool *contract
}

func (a *Agent) newContract(s *enforce.Schema) *contract {
	c := a.contractOf(s, a.cfg.outputTool)
	if a.cfg.autoTool != "" {
		c.asTool = a.contractOf(s, a.cfg.autoTool)
	}
	return c
}

// contractOf is s's contract with the answer a call of the output tool
// named tool, or, for "", text.
func (a *Agent) contractOf(s *enforce.Schema, tool string) *contract {
	js := forModel(s.JSON())
	system := a.cfg.system
	if system != "" {
		system += "\n\n"
	}
	if words := s.Instructions(); words != "" && (tool == "" || s.Kind() == enforce.KindText) {
		// An answer of a kind read from text (a label, plain text) is
		// asked for in its own words. A choice's JSON is its object form,
		// for a native mode; a text has none (and no output tool).
		if s.Kind() == enforce.KindText {
			js = nil
		}
		return &contract{system: system + words, json: slices.Clip(js)}
	}
	if name := tool; name != "" {
		tools := append(slices.Clone(a.specs), outputToolSpec(name, slices.Clip(js)))
		return &contract{system: system + outputToolPrompt(name), tools: slices.Clip(tools)}
	}
	system += contractPrompt(js)
	return &contract{system: system, json: slices.Clip(js)}
}

// contractFor returns the contract for s, made once per schema.
func (a *Agent) contractFor(s *enforce.Schema) *contract {
	switch {
	case s == nil:
		return nil
	case s == a.cfg.schema && a.contract != nil:
		return a.contract
	}
	if c, ok := a.contracts.Load(s); ok {
		return c.(*contract)
	}
	c, _ := a.contracts.LoadOrStore(s, a.newContract(s))
	return c.(*contract)
}

// contractPrompt tells the model the output contract, in our words.
func contractPrompt(schemaJSON []byte) string {
	return "Your final answer must be a single JSON value that satisfies the JSON Schema below. " +
		"Reply with only the JSON: no prose, no markdown fences.\n\nJSON Schema:\n" + string(schemaJSON)
}

// forModel is a schema as the model sees it, without the root "$id": a
// validator's name for the schema, which for a reflected one is a URL
// made of the Go import path — nothing the model needs, and nothing a
// program should tell it. It stays when some "$ref" is not a fragment
// ("#…"): such a reference resolves against it. The other members keep
// their order; the result is compact.
func forModel(js json.RawMessage) json.RawMessage {
	if !bytes.Contains(js, []byte(`"$id"`)) {
		return js
	}
	var tree any
	if json.Unmarshal(js, &tree) != nil || outsideRef(tree) {
		return js
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return js
	}
	out, found := []byte{'{'}, false
	for dec.More() {
		k, err := dec.Token()
		var v json.RawMessage
		if err != nil || dec.Decode(&v) != nil {
			return js
		}
		if k == "$id" {
			found = true
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		key, _ := json.Marshal(k)
		out = append(append(append(out, key...), ':'), v...)
	}
	var b bytes.Buffer
	if !found || json.Compact(&b, append(out, '}')) != nil {
		return js
	}
	return b.Bytes()
}

// outsideRef reports whether a "$ref" in the schema tree v is not a
// fragment of the same document.
func outsideRef(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			if ref, ok := sub.(string); ok && k == "$ref" && !strings.HasPrefix(ref, "#") {
				return true
			}
			if outsideRef(sub) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(v, outsideRef)
	}
	return false
}
