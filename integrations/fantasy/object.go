package fantasy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"charm.land/fantasy"
	"charm.land/fantasy/schema"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/integrations/internal/glue"
)

// ObjectModel is an agent.Model over a fantasy.LanguageModel's
// GenerateObject, for the agent's native output: the contract is sent
// as fantasy's object schema, and the answer is fantasy's raw text,
// judged by enforcer whatever fantasy's own check said. Immutable and
// safe for concurrent use when the fantasy model is.
type ObjectModel struct {
	lm   fantasy.LanguageModel
	base fantasy.ObjectCall
}

// NewObjectModel returns an ObjectModel that calls lm's GenerateObject,
// with base's settings (schema name, temperature, provider options, …)
// on every call; its Prompt and Schema are the request's, and its
// RepairText is dropped: fantasy's check is not the judge here (see
// [RepairText] for a fantasy program's own calls).
//
// fantasy's Schema holds a subset of JSON Schema (types, properties,
// required, items, enum, bounds, format): the contract is lowered to it
// ($refs inlined, other keywords dropped) for the provider, and still
// judged whole. A recursive contract cannot be lowered: the call fails
// with agent.ErrInvalidOption. The request must carry the contract
// (agent.WithOutputSchema, no output tool) and no tools.
func NewObjectModel(lm fantasy.LanguageModel, base fantasy.ObjectCall) *ObjectModel {
	base.RepairText = nil
	return &ObjectModel{lm: lm, base: base}
}

// Generate asks the fantasy model for an object. Its raw text is the
// answer: that of the object fantasy accepted, or of the one it refused
// (its *fantasy.NoObjectGeneratedError or *schema.ParseError), which
// enforcer then judges and corrects. Usage is what fantasy reports;
// for a text its JSON mode refused (a *schema.ParseError) fantasy
// v0.41's OpenAI provider reports none. Failed calls are classified as
// for [Model.Generate].
func (m *ObjectModel) Generate(ctx context.Context, req agent.Request) (agent.Response, error) {
	call, err := m.prepare(req)
	if err != nil {
		return agent.Response{}, err
	}
	out, err := m.lm.GenerateObject(ctx, call)
	var nog *fantasy.NoObjectGeneratedError
	var pe *schema.ParseError
	resp := agent.Response{Message: agent.Message{Role: agent.RoleAssistant}}
	switch {
	case err == nil && out == nil:
		return agent.Response{}, glue.Malformed(System, "the model returned no object")
	case err == nil:
		resp.Message.Content, resp.Usage = out.RawText, usage(out.Usage)
		resp.Stop, resp.StopRaw = stopReason(out.FinishReason), string(out.FinishReason)
	case ctx.Err() != nil:
		return agent.Response{}, context.Cause(ctx)
	case errors.As(err, &nog):
		resp.Message.Content, resp.Usage = nog.RawText, usage(nog.Usage)
		resp.Stop, resp.StopRaw = stopReason(nog.FinishReason), string(nog.FinishReason)
	case errors.As(err, &pe):
		resp.Message.Content = pe.RawText
	default:
		return agent.Response{}, failure(ctx, err)
	}
	return resp, nil
}

func (m *ObjectModel) prepare(req agent.Request) (fantasy.ObjectCall, error) {
	switch {
	case m.lm == nil:
		return fantasy.ObjectCall{}, fmt.Errorf("%w: fantasy: NewObjectModel(nil)", agent.ErrInvalidOption)
	case len(req.OutputSchema) == 0:
		return fantasy.ObjectCall{}, fmt.Errorf("%w: fantasy: an ObjectModel needs the agent's contract (WithOutputSchema, without WithOutputTool)", agent.ErrInvalidOption)
	case len(req.Tools) > 0:
		return fantasy.ObjectCall{}, fmt.Errorf("%w: fantasy: GenerateObject takes no tools; the agent offers %d", agent.ErrInvalidOption, len(req.Tools))
	}
	call := m.base
	var err error
	if call.Prompt, err = toPrompt(req.Messages); err != nil {
		return fantasy.ObjectCall{}, err
	}
	if call.Schema, err = lower(req.OutputSchema); err != nil {
		return fantasy.ObjectCall{}, fmt.Errorf("%w: fantasy: the contract: %w", agent.ErrInvalidOption, err)
	}
	return call, nil
}

// lower makes fantasy's Schema of a JSON Schema: local $refs inlined,
// the keywords fantasy's Schema has kept, the others dropped.
func lower(raw json.RawMessage) (fantasy.Schema, error) {
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		return fantasy.Schema{}, err
	}
	inlined, err := inline(root, root, map[string]bool{})
	if err != nil {
		return fantasy.Schema{}, err
	}
	b, err := json.Marshal(inlined)
	if err != nil {
		return fantasy.Schema{}, err
	}
	var s fantasy.Schema
	err = json.Unmarshal(b, &s)
	return s, err
}

// maxInline bounds the nodes inline visits, so that a contract whose
// $refs fan out (each used many times, nested) cannot grow without end.
const maxInline = 1 << 16

// inline replaces each "#/$defs/…" or "#/definitions/…" $ref in v by its
// target; open holds the refs being inlined, so a loop is an error.
func inline(root map[string]any, v any, open map[string]bool) (any, error) {
	budget := maxInline
	return inlineNode(root, v, open, &budget)
}

func inlineNode(root map[string]any, v any, open map[string]bool, budget *int) (any, error) {
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("the schema grows past %d nodes with its $refs inlined", maxInline)
	}
	switch n := v.(type) {
	case map[string]any:
		if ref, ok := n["$ref"].(string); ok {
			if open[ref] {
				return nil, fmt.Errorf("$ref %q is recursive, which fantasy's Schema cannot hold", ref)
			}
			target, err := resolve(root, ref)
			if err != nil {
				return nil, err
			}
			open[ref] = true
			defer delete(open, ref)
			return inlineNode(root, target, open, budget)
		}
		out := make(map[string]any, len(n))
		for k, c := range n {
			if k == "$defs" || k == "definitions" {
				continue
			}
			r, err := inlineNode(root, c, open, budget)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(n))
		for i, c := range n {
			r, err := inlineNode(root, c, open, budget)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

func resolve(root map[string]any, ref string) (any, error) {
	for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
		if name, ok := strings.CutPrefix(ref, prefix); ok {
			defs, _ := root[strings.TrimSuffix(prefix[2:], "/")].(map[string]any)
			if t, ok := defs[name]; ok {
				return t, nil
			}
		}
	}
	return nil, fmt.Errorf("$ref %q names no local definition", ref)
}
