package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
)

// Observer is told what a run does while it does it: the seam a tracer
// (such as the module github.com/enforcer-go/enforcer/otel) plugs into.
// Every field is optional. A Start func returns the context the observed
// work runs under, ctx or one derived from it; the matching End is given
// that context, and is called only after its own Start returned. An
// Observer must be safe for concurrent use (tools may run in parallel,
// and a cancelled run's tool may end after RunEnd). A func that panics is
// logged and has no further effect. The values passed are the run's own,
// read-only, and carry the conversation's text.
type Observer struct {
	// Details: the model's Generate receives the context ModelStart
	// returned, a tool the one ToolStart returned, and every call inside
	// a run descends from RunStart's. ToolStart and ToolEnd run on the
	// tool's goroutine with WithParallelTools. A Start that panics
	// started nothing: the work runs under the context it was given, and
	// its End is not called (so a tracer's End never ends a span it did
	// not begin, such as the caller's). An observer that exports the
	// values decides what of the text leaves the process.

	// RunStart is called as a run starts, with its turn ID and the user's
	// input; RunEnd as it ends, with what Run returns. A run refused
	// before it starts (RunTyped with a schema that does not fit its
	// type) is observed too: RunStart, then at once RunEnd with the error.
	RunStart func(ctx context.Context, turnID, input string) context.Context
	RunEnd   func(ctx context.Context, res *Result, err error)
	// ModelStart is called before each model call (each try of one
	// retried under [WithModelRetry] is a call), ModelEnd after it.
	ModelStart func(ctx context.Context, req Request) context.Context
	ModelEnd   func(ctx context.Context, call ModelCall)
	// ToolStart is called before each tool call runs; ToolEnd after it,
	// with the tool's result and its error (an unknown tool, a panic),
	// which the model is shown as "error: " + text; for arguments that
	// failed, the *enforce.CheckError (the model is shown the call's
	// corrective tool message).
	ToolStart func(ctx context.Context, call ToolCall) context.Context
	ToolEnd   func(ctx context.Context, call ToolCall, result string, err error)
	// Call is called with each tool call's row ([Result.Calls]), under
	// the context ToolStart returned for the call, before the tool runs
	// (a call that failed does not run).
	Call func(ctx context.Context, row enforce.Attempt)
	// Attempt is called with each row as the ledger writes it
	// ([WithOutputRetries]).
	Attempt func(ctx context.Context, row enforce.Attempt)
	// Retry is called as a model-call or turn retry is scheduled, before
	// its wait begins.
	Retry func(ctx context.Context, r Retry)
}

// ModelCall is one model call as it ended.
type ModelCall struct {
	Request Request
	// Response is the reply; when Err is set, only its Usage may hold
	// what the call spent before it failed.
	Response Response
	// Err is the call's failure, as the Model returned it (a panic in the
	// Model is an error here too).
	Err error
	// Streamed: the call went through [StreamingModel.GenerateStream].
	Streamed bool
	// Cut says the reply was stopped at an early verdict
	// ([WithEarlyAbort]) and how far it got; nil otherwise.
	Cut *enforce.Cut
	// Latency is how long the call took, by the agent's clock ([WithClock]).
	Latency time.Duration
}

// Retry is a scheduled retry of a model call ([WithModelRetry]) or of a
// whole turn ([WithTurnRetry]).
type Retry struct {
	// Kind is events.RetryModel or events.RetryTurn.
	Kind events.RetryKind
	// Attempt is the try that failed (1-based): a call, or a run of the
	// turn; MaxAttempts the policy's bound.
	Attempt, MaxAttempts int
	// Delay is the wait before the next try.
	Delay time.Duration
	// Reason says why, in the words of the session stream: for a
	// [*ProviderError] its kind and HTTP status, never its message.
	Reason string
	// Err is the failure being retried.
	Err error
}

// WithObserver has o told what each run does (see [Observer]). Without
// it, observing costs nothing.
func WithObserver(o Observer) Option {
	return optionFunc(func(c *config) { c.observer = &o })
}

// The methods below call the observer's funcs, each guarded so that a
// panic is logged and goes no further. They are called only when the
// agent has an observer.

func (a *Agent) observe(what string, f func()) {
	defer func() {
		if r := recover(); r != nil {
			a.cfg.logger.Error("observer panicked", "call", what, "panic", fmt.Sprint(r))
		}
	}()
	f()
}

// observeStart calls a Start func and returns the context it gave, or ctx
// when it gave none or panicked; started is false when it panicked, and
// its End must then not be called.
func (a *Agent) observeStart(what string, ctx context.Context, f func() context.Context) (_ context.Context, started bool) {
	out := ctx
	a.observe(what, func() {
		if c := f(); c != nil {
			out = c
		}
		started = true
	})
	return out, started
}

func (a *Agent) runStart(ctx context.Context, turn, input string) (context.Context, bool) {
	if f := a.cfg.observer.RunStart; f != nil {
		return a.observeStart("RunStart", ctx, func() context.Context { return f(ctx, turn, input) })
	}
	return ctx, true
}

func (a *Agent) runEnd(ctx context.Context, res *Result, err error) {
	if f := a.cfg.observer.RunEnd; f != nil {
		a.observe("RunEnd", func() { f(ctx, res, err) })
	}
}

func (a *Agent) modelStart(ctx context.Context, req Request) (context.Context, bool) {
	if f := a.cfg.observer.ModelStart; f != nil {
		return a.observeStart("ModelStart", ctx, func() context.Context { return f(ctx, req) })
	}
	return ctx, true
}

func (a *Agent) modelEnd(ctx context.Context, call ModelCall) {
	if f := a.cfg.observer.ModelEnd; f != nil {
		a.observe("ModelEnd", func() { f(ctx, call) })
	}
}

func (a *Agent) toolStart(ctx context.Context, call ToolCall) (context.Context, bool) {
	if f := a.cfg.observer.ToolStart; f != nil {
		return a.observeStart("ToolStart", ctx, func() context.Context { return f(ctx, call) })
	}
	return ctx, true
}

func (a *Agent) toolEnd(ctx context.Context, call ToolCall, result string, err error) {
	if f := a.cfg.observer.ToolEnd; f != nil {
		a.observe("ToolEnd", func() { f(ctx, call, result, err) })
	}
}

// observeRow tells the observer, if any, of a ledger row.
func (a *Agent) observeRow(ctx context.Context, row enforce.Attempt) {
	if a.cfg.observer == nil || a.cfg.observer.Attempt == nil {
		return
	}
	f := a.cfg.observer.Attempt
	a.observe("Attempt", func() { f(ctx, row) })
}

// observeRetry tells the observer, if any, of a scheduled retry.
func (a *Agent) observeRetry(ctx context.Context, r Retry) {
	if a.cfg.observer == nil || a.cfg.observer.Retry == nil {
		return
	}
	f := a.cfg.observer.Retry
	a.observe("Retry", func() { f(ctx, r) })
}

// observed runs the turn under the observer's RunStart and RunEnd.
func (a *Agent) observed(ctx context.Context, turn, input string, run func(context.Context) (*Result, error)) (*Result, error) {
	ctx, started := a.runStart(ctx, turn, input)
	res, err := run(ctx)
	if started {
		a.runEnd(ctx, res, err)
	}
	return res, err
}

// refused tells the observer, if any, of a run refused before it started,
// so that a tracer shows it too.
func (a *Agent) refused(ctx context.Context, input string, res *Result, err error) {
	if a.cfg.observer != nil {
		a.observed(ctx, res.TurnID, input, func(context.Context) (*Result, error) { return res, err })
	}
}
