package anthropic

import (
	"encoding/json"
	"fmt"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/internal/wireschema"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
	"github.com/enforcer-go/enforcer/providers/native"
)

// inlineRoot prepares a schema for the wire: an input schema must have
// "type": "object" at its root.
func inlineRoot(b json.RawMessage) (map[string]any, error) {
	_, schema, err := wireschema.InlineRoot(b)
	return schema, err
}

// OutputModes says what the API takes for contract
// (agent.ModeReporter, read by agent.WithAutoOutputMode): native when
// WithNativeSchema is given and its lowering is exact
// (native.Report.Exact), and tools, unless WithParams turns extended
// thinking on: the API refuses a forced tool call with it.
func (m *Model) OutputModes(contract json.RawMessage) agent.Modes {
	var modes agent.Modes
	if !m.native {
		modes = wire.Modes(nil, nil, "WithNativeSchema")
	} else {
		l, err := native.Lower(contract, native.Anthropic)
		if err != nil {
			err = fmt.Errorf("anthropic: output schema: %w", err)
		}
		modes = wire.Modes(l, err, "WithNativeSchema")
	}
	if m.thinks() {
		why := whyThinking
		if modes.Why != "" {
			why = modes.Why + "; " + why
		}
		modes.Tools, modes.Why = false, why
	}
	return modes
}

// NativeReport says how WithNativeSchema sends contract (a JSON Schema,
// as agent.Request.OutputSchema carries it): as an output format
// (native.ModeStrict) or not at all (native.ModeNone), and which of its
// keywords the API enforces and which only the agent judges. Anthropic
// keeps optional members optional, so nothing is read back.
func NativeReport(contract []byte) (native.Report, error) {
	l, err := native.Lower(contract, native.Anthropic)
	if err != nil {
		return native.Report{}, err
	}
	return l.Report, nil
}
