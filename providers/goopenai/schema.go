package goopenai

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sync"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
	"github.com/enforcer-go/enforcer/providers/native"

	"github.com/enforcer-go/enforcer/internal/wireschema"
)

// schemaName is what OpenAI accepts as a response format name.
var schemaName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// inlineRoot prepares a schema for the wire (OpenAI wants "type":
// "object" at the root of tool parameters and response formats) and names
// it after its inlined definition, or "output".
func inlineRoot(b json.RawMessage) (string, map[string]any, error) {
	name, schema, err := wireschema.InlineRoot(b)
	if !schemaName.MatchString(name) {
		name = "output"
	}
	return name, schema, err
}

// lowerings keeps the last contract lowered: the agent sends the same
// output schema on every iteration of a run.
type lowerings struct {
	mu       sync.Mutex
	contract string
	l        *native.Lowering
}

// lowering is req's output schema lowered for the Model's profile; nil
// without WithNativeSchema or an output schema.
func (m *Model) lowering(req agent.Request) (*native.Lowering, error) {
	if m.native == "" || len(req.OutputSchema) == 0 {
		return nil, nil
	}
	c := &m.lowered
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.l != nil && c.contract == string(req.OutputSchema) {
		return c.l, nil
	}
	l, err := native.Lower(req.OutputSchema, m.native)
	if err != nil {
		return nil, fmt.Errorf("goopenai: output schema: %w", err)
	}
	c.contract, c.l = string(req.OutputSchema), l
	return l, nil
}

// OutputModes says what the endpoint takes for contract
// (agent.ModeReporter, read by agent.WithAutoOutputMode): native when
// WithNativeSchema's profile lowers it exactly (native.Report.Exact),
// and tools.
func (m *Model) OutputModes(contract json.RawMessage) agent.Modes {
	l, err := m.lowering(agent.Request{OutputSchema: contract}) // kept for the requests that follow
	return wire.Modes(l, err, "WithNativeSchema")
}

// NativeReport says how WithNativeSchema(p) sends contract (a JSON
// Schema, as agent.Request.OutputSchema carries it): strict, non-strict
// or not at all, which of its keywords the endpoint enforces and which
// only the agent judges, and which optional members it sends as nullable
// (their null read back as the member left out).
func NativeReport(contract []byte, p native.Profile) (native.Report, error) {
	l, err := native.Lower(contract, p)
	if err != nil {
		return native.Report{}, err
	}
	return l.Report, nil
}
