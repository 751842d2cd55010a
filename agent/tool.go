package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/internal/toolcall"
)

// Tool is a function the model may call. Run receives the arguments the
// model wrote; its result, or its error, goes back to the model as a tool
// message, so the model can react to a failure.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments, shown to the model.
	Parameters json.RawMessage
	Run        func(ctx context.Context, args json.RawMessage) (string, error)

	args *enforce.Schema // set by NewTool: arguments are judged before Run
	err  error           // set by NewTool when In has no schema
}

// NewTool builds a Tool whose arguments decode into In. The parameters
// schema is reflected from In (as enforce.SchemaFor does), and arguments
// that break it are answered with the issues, without calling fn.
func NewTool[In any](name, description string, fn func(ctx context.Context, in In) (string, error)) Tool {
	t := Tool{Name: name, Description: description}
	s, err := enforce.SchemaFor[In]()
	if err != nil {
		t.err = fmt.Errorf("tool %q: %w", name, err)
		return t
	}
	t.args = s
	t.Parameters = s.JSON()
	t.Run = func(ctx context.Context, args json.RawMessage) (string, error) {
		var in In
		if err := json.Unmarshal(args, &in); err != nil {
			return "", fmt.Errorf("arguments do not decode: %w", err)
		}
		return fn(ctx, in)
	}
	return t
}

func (t Tool) spec() ToolSpec {
	return ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters}
}

// call runs the tool and turns every failure — bad arguments, an error, a
// panic — into an error whose text goes back to the model.
func (t Tool) call(ctx context.Context, args json.RawMessage) (out string, err error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if t.args != nil {
		if err := t.args.Check(string(args)); err != nil {
			return "", fmt.Errorf("invalid arguments: %w", err)
		}
	} else if !json.Valid(args) {
		return "", fmt.Errorf("invalid arguments: not JSON")
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = "", fmt.Errorf("%w: %v", errToolPanic, r)
		}
	}()
	return t.Run(ctx, args)
}

// uniqueIDs gives each of a reply's calls an ID of its own, by
// toolcall.Unique's rule, which owns the form of the IDs it makes up.
func uniqueIDs(calls []ToolCall, iteration int) {
	toolcall.Unique(calls, func(c *ToolCall) *string { return &c.ID }, iteration)
}

// runTools runs the calls and appends one tool message per call, in order.
// Tool failures become messages; only a done ctx stops the run, and at
// once: a tool that ignores ctx is left to finish on its own goroutine.
func (st *runState) runTools(ctx context.Context, calls []ToolCall) error {
	results := make([]string, len(calls))
	if ctx.Done() == nil { // never cancelled: nothing to return early for
		st.callTools(ctx, calls, results)
	} else {
		done := make(chan struct{})
		go func() {
			defer close(done)
			st.callTools(ctx, calls, results)
		}()
		select {
		case <-done:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	if err := context.Cause(ctx); err != nil {
		return err
	}
	for i, c := range calls {
		st.res.Messages = append(st.res.Messages, Message{Role: RoleTool, Content: results[i], ToolCallID: c.ID})
	}
	return nil
}

// callTools writes each call's result at its index, on up to
// [WithParallelTools] goroutines, and starts no call once ctx is done.
func (st *runState) callTools(ctx context.Context, calls []ToolCall, results []string) {
	workers := min(max(st.a.cfg.parallelTools, 1), len(calls))
	if workers == 1 {
		for i, c := range calls {
			if ctx.Err() != nil {
				return
			}
			results[i] = st.callTool(ctx, c)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	wg.Add(workers)
	for range workers {
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(calls) {
					return
				}
				results[i] = st.callTool(ctx, calls[i])
			}
		}()
	}
	wg.Wait()
}

// callTool runs one call; every failure becomes the text the model sees.
func (st *runState) callTool(ctx context.Context, c ToolCall) string {
	started := false
	if st.a.cfg.observer != nil {
		ctx, started = st.a.toolStart(ctx, c)
	}
	out, err := st.tool(ctx, c)
	if started {
		st.a.toolEnd(ctx, c, out, err)
	}
	if err != nil {
		return "error: " + err.Error()
	}
	return out
}

// tool runs one call.
func (st *runState) tool(ctx context.Context, c ToolCall) (string, error) {
	idx, ok := st.a.cfg.toolIndex[c.Name]
	if !ok {
		return "", fmt.Errorf("unknown tool %q; available: %s", c.Name, st.toolNames())
	}
	out, err := st.a.cfg.tools[idx].call(ctx, c.Arguments)
	if err != nil {
		st.a.cfg.logger.Debug("tool failed", "tool", c.Name, "id", c.ID, "error", err)
	}
	return out, err
}

func (st *runState) toolNames() string {
	if len(st.a.cfg.tools) == 0 {
		return "none"
	}
	names := make([]string, len(st.a.cfg.tools))
	for i, t := range st.a.cfg.tools {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

// truncatedToolCalls answers the calls of a reply truncated at the output limit
// without running them: the last one's arguments are incomplete, and
// which others are whole cannot be told.
func (st *runState) truncatedToolCalls(calls []ToolCall) {
	st.a.cfg.logger.Debug("tool calls truncated at the output limit; not run", "turn", st.turn, "calls", len(calls))
	for _, c := range calls {
		st.res.Messages = append(st.res.Messages, Message{Role: RoleTool, Content: truncatedToolCall, ToolCallID: c.ID})
	}
}

// truncatedToolCall is the tool message for a call of a reply truncated at the
// output limit.
const truncatedToolCall = "error: your reply was truncated at the output length limit before this tool call was complete, " +
	"so the tool was not run. Call it again, with shorter arguments if you can, and fewer calls per reply."
