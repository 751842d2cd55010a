package agent

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
)

// WithToolCallLimit ends a run once n calls of one tool in a row have
// failed to keep its parameters: the n-th call's row is exhausted and
// Run returns a [*ToolCallError] naming the tool and the call's issues.
// A call that passes resets its tool's count. n is 0 (no limit, the
// default: the iteration bound ends such a run) or 1..enforce.MaxRetries+1.
func WithToolCallLimit(n int) Option {
	// Per tool and in a row (see enforce.NewCallLedger): the error names
	// one tool and its last issues, which say what went wrong only when
	// that tool's calls are what kept failing.
	return optionFunc(func(c *config) {
		if n < 0 || n > enforce.MaxRetries+1 {
			c.invalid("WithToolCallLimit(%d): want 0 (no limit) or 1..%d", n, enforce.MaxRetries+1)
		}
		c.callLimit = n
	})
}

// anyArguments is the parameters schema of a tool that gives none: any
// one JSON value.
var anyArguments = sync.OnceValue(func() *enforce.Schema {
	s, err := enforce.CompileSchema([]byte(`{}`))
	if err != nil {
		panic(err) // {} is a schema
	}
	return s
})

// judgeTools gives each tool the schema its calls' arguments are judged
// against: NewTool's, else its Parameters compiled (a schema enforce
// refuses is an invalid option naming the tool, with the
// *enforce.SchemaError that names the keyword and its location), else
// any JSON value; with [WithRepairs], mending as they say.
func (c *config) judgeTools() {
	for i := range c.tools {
		t := &c.tools[i]
		if t.args == nil {
			t.args = anyArguments()
			if len(t.Parameters) > 0 {
				s, err := enforce.CompileSchema(t.Parameters)
				if err != nil {
					c.invalid("WithTools: tool %q: parameters: %w", t.Name, err)
					continue
				}
				t.args = s
			}
		}
		if c.repairs != 0 {
			t.args = t.args.WithRepairs(c.repairs)
		}
	}
}

// textCalls reads a reply's text as the calls of the agent's tools a
// provider's server left in it, with [WithRepairs] holding
// enforce.RepairToolText: only where enforce.ReadTextCalls has exactly one
// reading and, in text mode, the text does not keep the contract as the
// answer (then it is one). nil otherwise.
func (st *runState) textCalls(content string) []ToolCall {
	cfg := st.a.cfg
	if cfg.repairs&enforce.RepairToolText == 0 || len(cfg.toolIndex) == 0 {
		return nil
	}
	read, ok := enforce.ReadTextCalls(content, func(name string) bool { _, ok := cfg.toolIndex[name]; return ok })
	if !ok || st.schema != nil && st.outputTool() == "" && st.schema.Check(content) == nil {
		return nil
	}
	calls := make([]ToolCall, len(read))
	for i, c := range read {
		calls[i] = ToolCall{ID: c.ID, Name: c.Tool, Arguments: json.RawMessage(c.Arguments)}
	}
	return calls
}

// toolRun is one call of a reply as judged, and then as run.
type toolRun struct {
	tool *Tool // nil: no tool of that name
	// args are what the tool is given: the model's, or as mended.
	args json.RawMessage
	// row is the call's row; zero for a call of no tool.
	row enforce.Attempt
	// failed is the call's failure, and message the tool message that
	// answers it; nil and "" for a call that passed.
	failed  *enforce.CheckError
	message string
	out     string // the tool message's content
	// rules are the verdicts of the rules on the result, and stop the
	// error that ends the run for it ([WithToolResultRules]).
	rules *enforce.Rulings
	stop  error
}

// judgeCalls judges the reply's calls in order, before any runs, so that
// their rows keep the reply's order whatever runs in parallel; a failed
// call is recorded at once.
func (st *runState) judgeCalls(calls []ToolCall) []toolRun {
	runs := make([]toolRun, len(calls))
	m := st.model()
	var answers enforce.Cost // the failed answers' cost, toward the failed-cost budget
	if st.ledger != nil && st.a.cfg.budget != (enforce.Cost{}) {
		answers = enforce.FailedCost(st.ledger.Attempts())
	}
	moved := false
	for i, c := range calls {
		idx, ok := st.a.cfg.toolIndex[c.Name]
		if !ok {
			continue
		}
		r := &runs[i]
		r.tool = &st.a.cfg.tools[idx]
		if st.calls == nil {
			st.calls, _ = enforce.NewCallLedger(st.a.cfg.callLimit, st.a.cfg.repeats) // bounds checked by the options
			_ = st.calls.Budget(st.a.cfg.budget)                                      // checked by WithFailedCostBudget
		}
		v := st.calls.Judge(r.tool.args, enforce.Call{Tool: c.Name, ID: c.ID, Arguments: string(c.Arguments),
			Iteration: st.res.Iterations, Provider: m.provider, Model: m.name, FromText: st.fromText,
			Cost: st.cost, FailedAnswers: answers, Cut: st.cutOf(i)})
		r.row = v.Row
		switch {
		case v.Err != nil:
			r.failed, r.message = v.Err, v.Message
			st.a.cfg.logger.Debug("tool call rejected", "tool", c.Name, "id", c.ID, "outcome", v.Row.Outcome,
				"stage", v.Row.Stage, "path", v.Row.Path, "error", v.Row.Error)
			st.a.recordCall(st.turn, v.Row)
			if v.Row.Outcome == enforce.OutcomeRetried && !moved {
				moved = st.escalateAfter(v.Row) // once moved, the rest of the reply is the next model's to redo
			}
		case v.Row.Repaired != 0 || len(c.Arguments) == 0:
			r.args = json.RawMessage(v.Arguments)
		default:
			r.args = c.Arguments // as written, byte for byte
		}
	}
	return runs
}

// exhausted is the error of the reply's first exhausted call, nil when
// none was.
func (st *runState) exhausted(runs []toolRun) error {
	for _, r := range runs {
		if r.row.Outcome == enforce.OutcomeExhausted {
			return &ToolCallError{Tool: r.row.Tool, CallID: r.row.CallID, Stage: r.failed.Stage,
				Issues: r.failed.Issues, Reason: r.row.Reason, Calls: st.callRows()}
		}
	}
	return nil
}

// recordCall records a failed call's row on the session stream.
func (a *Agent) recordCall(turn string, row enforce.Attempt) {
	a.record(events.ToolCallRejected{
		TurnID: turn, Call: row.Attempt, Iteration: row.Iteration, Tool: row.Tool, CallID: row.CallID,
		Outcome: string(row.Outcome), Stage: string(row.Stage), Error: row.Error, Path: row.Path,
		CorrectiveMessageHash: row.CorrectiveMessageHash, Reason: events.ExhaustReason(row.Reason),
		Repaired: repairNames(row.Repaired), Provider: row.Provider, Model: row.Model,
	})
}

// observeCall tells the observer, if any, of a call's row.
func (a *Agent) observeCall(ctx context.Context, row enforce.Attempt) {
	if a.cfg.observer == nil || a.cfg.observer.Call == nil {
		return
	}
	f := a.cfg.observer.Call
	a.observe("Call", func() { f(ctx, row) })
}

// failedCalls is what the run's failed calls cost so far, toward
// [WithFailedCostBudget] beside the failed answers.
func (st *runState) failedCalls() enforce.Cost {
	if st.calls == nil || st.a.cfg.budget == (enforce.Cost{}) {
		return enforce.Cost{}
	}
	return enforce.FailedCost(st.calls.Calls())
}
