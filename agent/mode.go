package agent

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/enforcer-go/enforcer/internal/wireschema"
)

// The output mode per model ([WithAutoOutputMode]): how the contract
// reaches each model, chosen from what the model says it takes.

// OutputMode is how the contract reaches the model.
type OutputMode string

const (
	// ModeNative: the contract in the system message and as
	// [Request.OutputSchema], which the adapter sends in its provider's
	// native structured-output mode.
	ModeNative OutputMode = "native"
	// ModeTool: the answer is a call of an output tool whose parameters
	// are the contract ([WithOutputTool]).
	ModeTool OutputMode = "tool"
	// ModePrompted: the contract in the system message only.
	ModePrompted OutputMode = "prompted"
)

// Modes is what a model says of the output modes it takes for one
// contract ([ModeReporter]).
type Modes struct {
	// Native: the provider's native mode enforces the whole contract
	// (for the adapters here, native.Report.Exact: sent strict, no
	// keyword left out).
	Native bool
	// Strict: the native mode constrains the answer, though it may leave
	// keywords out (native.Report's mode strict); Native implies it.
	Strict bool
	// Tools: the model takes tools and can be made to call one (not so,
	// say, for Anthropic with extended thinking on).
	Tools bool
	// Why says, in the model's words, why Native and Tools are what they
	// are.
	Why string
}

// Choice is the mode [WithAutoOutputMode] sends a model that says m,
// and why: native when the provider enforces the whole contract, else
// tool when the model takes tools, else native when its native mode
// constrains the answer at all (Strict), else prompted.
func (m Modes) Choice() (OutputMode, string) {
	switch {
	case m.Native:
		return ModeNative, m.Why
	case m.Tools:
		return ModeTool, join(m.Why, "tool output instead")
	case m.Strict:
		return ModeNative, join(m.Why, "no tool output: native, what it leaves out judged here alone")
	}
	return ModePrompted, join(m.Why, "no tool output")
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// ModeReporter is implemented by a Model that can say which output
// modes it takes for a contract: the adapters in providers/ do. A Model
// that does not is sent prompted by [WithAutoOutputMode].
type ModeReporter interface {
	// OutputModes says what the model takes for contract, the JSON
	// Schema [Request.OutputSchema] would carry. It is called once per
	// run and must not call the provider.
	OutputModes(contract json.RawMessage) Modes
}

// ModeChoice is one choice of output mode in a run, in [Result.Modes].
type ModeChoice struct {
	// Iteration is the first iteration asked in Mode.
	Iteration int        `json:"iteration"`
	Mode      OutputMode `json:"mode"`
	// Why is the reason for the choice, in words.
	Why string `json:"why"`
	// Unsupported, on a choice after the first, is the mode the provider
	// refused as unsupported ([ProviderError.Unsupported]), which this
	// choice replaced; the refused call is not an iteration.
	Unsupported OutputMode `json:"unsupported,omitempty"`
}

// WithAutoOutputMode chooses how the contract reaches the model, from
// what the model says it takes ([ModeReporter], [Modes.Choice]): native
// when its provider's native mode enforces the whole contract, else
// tool-call output with an output tool named tool (as
// [WithOutputTool]), else prompted. The choice and why are the first of
// [Result.Modes], and each row names its mode ([enforce.Attempt.Mode]).
// A call the provider refuses as not supporting the mode
// ([ProviderError.Unsupported]: a 400 naming response_format, or tools)
// is sent again at once in the next mode — native, then tool (when the
// model takes tools), then prompted — each move recorded in
// Result.Modes and not counted as an iteration; a refusal of prompted
// output, or of a mode not in force, fails the run as any provider
// error does. It needs [WithOutputSchema] or [RunTyped]; tool is as for
// WithOutputTool, which it cannot be given beside.
func WithAutoOutputMode(tool string) Option {
	return optionFunc(func(c *config) {
		if !validToolName(tool) {
			c.invalid("WithAutoOutputMode(%q): want 1 to %d of a-z, A-Z, 0-9, _ and -", tool, maxToolName)
		}
		c.autoTool = tool
	})
}

// autoMode is a run's output mode under [WithAutoOutputMode].
type autoMode struct {
	base  *contract // the contract's prompted and native form; base.asTool is its tool form
	mode  OutputMode
	tools bool // the model takes tools
}

// chooseMode chooses the output mode for the model that answers and
// records it; st.contract becomes that mode's. It runs when the run
// starts and again when it moves to another model ([WithEscalation]),
// whose system message it then rewrites.
func (st *runState) chooseMode() {
	base := st.contract
	if st.auto != nil {
		base = st.auto.base
	}
	var m Modes
	switch r, ok := st.model().m.(ModeReporter); {
	case base.json == nil:
		// A text (enforce.Text): no schema to send, natively or as a
		// tool's parameters.
		m.Why = "the contract is plain text, with no JSON Schema to send"
	case ok:
		m = r.OutputModes(base.json)
	default:
		m.Why = "the model does not say which output modes it takes"
	}
	if m.Tools && !m.Native && !wireschema.ObjectRoot(base.json) {
		// No tool's parameters: the choice without tools.
		m.Tools, m.Why = false, join(m.Why, "the contract's root is not an object, as a tool's parameters must be")
	}
	mode, why := m.Choice()
	moved := st.auto != nil
	st.auto = &autoMode{base: base, mode: mode, tools: m.Tools}
	st.contract = base.forMode(mode)
	st.res.Modes = append(st.res.Modes, ModeChoice{Iteration: st.res.Iterations + 1, Mode: mode, Why: why})
	if sys := st.systemMessage(); moved && sys != nil {
		sys.Content = st.contract.system
	}
}

// unsupported moves the run to the next output mode when err is the
// provider refusing the mode in force, and reports whether it did.
func (st *runState) unsupported(err error) bool {
	au := st.auto
	var pe *ProviderError
	if au == nil || !errors.As(err, &pe) || pe.Unsupported == "" || pe.Unsupported != au.mode {
		return false
	}
	next := ModePrompted
	switch {
	case au.mode == ModePrompted:
		return false
	case au.mode == ModeNative && au.tools:
		next = ModeTool
	}
	why := fmt.Sprintf("the provider refused %s output", au.mode)
	if s := pe.status(); s != 0 {
		why += fmt.Sprintf(" (HTTP %d)", s)
	}
	st.res.Modes = append(st.res.Modes, ModeChoice{Iteration: st.res.Iterations, Mode: next, Why: why, Unsupported: au.mode})
	st.a.cfg.logger.Debug("output mode unsupported", "turn", st.turn, "mode", au.mode, "next", next, "error", err)
	au.mode = next
	st.contract = au.base.forMode(next)
	if sys := st.systemMessage(); sys != nil {
		// The system message says how to answer: as the new mode asks.
		sys.Content = st.contract.system
	}
	return true
}

// mode is the output mode of the answer being judged, for its row; ""
// without [WithAutoOutputMode].
func (st *runState) mode() string {
	if st.auto == nil {
		return ""
	}
	return string(st.auto.mode)
}

// outputTool is the name of the output tool in force: [WithOutputTool]'s, or
// [WithAutoOutputMode]'s in tool mode; "" when the answer is text.
func (st *runState) outputTool() string {
	if st.auto != nil && st.auto.mode == ModeTool {
		return st.a.cfg.autoTool
	}
	return st.a.cfg.outputTool
}

// forMode is c in mode m: c itself is native (the schema as
// [Request.OutputSchema]); prompted sends no OutputSchema; tool is
// c.asTool.
func (c *contract) forMode(m OutputMode) *contract {
	switch m {
	case ModeTool:
		return c.asTool
	case ModePrompted:
		return &contract{system: c.system}
	}
	return c
}
