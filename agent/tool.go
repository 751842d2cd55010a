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
	// The agent compiles it once, in New, and judges each call's
	// arguments against it before Run (no Parameters: any one JSON
	// value); a schema enforce refuses makes Run return an error matching
	// [ErrInvalidOption] that carries the *enforce.SchemaError.
	Parameters json.RawMessage
	Run        func(ctx context.Context, args json.RawMessage) (string, error)

	// args judges the arguments before Run: NewTool's, or the agent's
	// (see judgeTools).
	args *enforce.Schema
	err  error // set by NewTool when In has no schema
}

// NewTool builds a Tool whose arguments decode into In. The parameters
// schema is reflected from In (as enforce.SchemaFor does). As for every
// tool, arguments that break it are answered with the issues, without
// calling fn ([Result.Calls]).
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

// call runs the tool on arguments already judged, and turns a panic into
// an error whose text goes back to the model.
func (t Tool) call(ctx context.Context, args json.RawMessage) (out string, err error) {
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

// runTools judges the calls, runs those that passed, and appends one
// tool message per call, in order. Tool failures become messages; a done
// ctx stops the run at once (a tool that ignores ctx is left to finish
// on its own goroutine), and so does a call exhausted under
// [WithToolCallLimit], once every call of the reply is answered.
func (st *runState) runTools(ctx context.Context, calls []ToolCall) error {
	runs := st.judgeCalls(calls)
	if ctx.Done() == nil { // never cancelled: nothing to return early for
		st.callTools(ctx, calls, runs)
	} else {
		done := make(chan struct{})
		go func() {
			defer close(done)
			st.callTools(ctx, calls, runs)
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
	st.takeJudged(ctx) // the results' judges, before the next request's caps
	for _, r := range runs {
		if r.rules != nil {
			if st.resultRulings == nil {
				st.resultRulings = map[int]*enforce.Rulings{}
			}
			st.resultRulings[r.row.Attempt] = r.rules
		}
	}
	for _, r := range runs {
		if r.stop != nil {
			return r.stop // before any result reaches the conversation
		}
	}
	for i, c := range calls {
		st.res.Messages = append(st.res.Messages, Message{Role: RoleTool, Content: runs[i].out, ToolCallID: c.ID})
	}
	return st.exhausted(runs)
}

// callTools writes each call's result into its run, on up to
// [WithParallelTools] goroutines, and starts no call once ctx is done.
func (st *runState) callTools(ctx context.Context, calls []ToolCall, runs []toolRun) {
	workers := min(max(st.a.cfg.parallelTools, 1), len(calls))
	if workers == 1 {
		for i, c := range calls {
			if ctx.Err() != nil {
				return
			}
			runs[i].out = st.callTool(ctx, c, &runs[i])
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
				runs[i].out = st.callTool(ctx, calls[i], &runs[i])
			}
		}()
	}
	wg.Wait()
}

// callTool runs one call; every failure becomes the text the model sees.
func (st *runState) callTool(ctx context.Context, c ToolCall, r *toolRun) string {
	started := false
	if st.a.cfg.observer != nil {
		ctx, started = st.a.toolStart(ctx, c)
		if r.tool != nil {
			st.a.observeCall(ctx, r.row)
		}
	}
	out, err := st.tool(ctx, c, r)
	if started {
		st.a.toolEnd(ctx, c, out, err)
	}
	switch {
	case r.failed != nil:
		return r.message
	case err != nil:
		return "error: " + err.Error()
	case st.a.cfg.resultRules != nil:
		out, r.rules, r.stop = st.judgeResult(ctx, c, out)
	}
	return out
}

// tool runs one call, unless it failed to be judged or names no tool.
func (st *runState) tool(ctx context.Context, c ToolCall, r *toolRun) (string, error) {
	switch {
	case r.tool == nil:
		return "", fmt.Errorf("unknown tool %q; available: %s", c.Name, st.toolNames())
	case r.failed != nil:
		return "", r.failed
	}
	out, err := r.tool.call(ctx, r.args)
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
