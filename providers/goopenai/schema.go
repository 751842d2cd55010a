package goopenai

import (
	"encoding/json"
	"fmt"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/openaiwire"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
	"github.com/enforcer-go/enforcer/providers/native"
)

// lowering is req's output schema lowered for the Model's profile; nil
// without WithNativeSchema or an output schema.
func (m *Model) lowering(req agent.Request) (*native.Lowering, error) {
	l, err := m.lowered.Lower(m.native, req.OutputSchema)
	if err != nil {
		return nil, fmt.Errorf("goopenai: output schema: %w", err)
	}
	return l, nil
}

// OutputModes says what the endpoint takes for contract
// (agent.ModeReporter, read by agent.WithAutoOutputMode): native when
// WithNativeSchema's profile lowers it exactly (native.Report.Exact),
// unless WithReasoning says the model reasons and the profile's server
// then does not constrain the answer; and tools.
func (m *Model) OutputModes(contract json.RawMessage) agent.Modes {
	l, err := m.lowering(agent.Request{OutputSchema: contract}) // kept for the requests that follow
	modes := wire.Modes(l, err, "WithNativeSchema")
	if m.reasons {
		modes = openaiwire.ReasoningModes(modes, m.native)
	}
	return modes
}

// NativeReport says how WithNativeSchema(p) sends contract (a JSON
// Schema, as agent.Request.OutputSchema carries it): strict, non-strict
// or not at all, which of its keywords the endpoint enforces and which
// only the agent judges, and which optional members it sends as nullable
// (their null read back as the member left out).
func NativeReport(contract []byte, p native.Profile) (native.Report, error) {
	return openaiwire.NativeReport(contract, p)
}
