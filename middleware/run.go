package middleware

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Step records one step that Run called and that returned without error.
//
// Run's trace holds one Step per such step, in order. A step with no Func
// for the phase is not in it, nor is a step that denied (the DeniedError
// names that one). Every Step carries the text after it, whether or not it
// changed anything; an unchanged step shares its predecessor's string, so
// this costs no copy. Walking the Changed steps shows which step first
// turned an acceptable text into an unacceptable one.
type Step struct {
	Name    string `json:"name"`
	Phase   Phase  `json:"phase"`
	Changed bool   `json:"changed"`       // Text differs from the text the step was given
	Why     string `json:"why,omitempty"` // the step's Explain notes, joined with "; "
	Text    string `json:"text"`          // the text after the step
}

// Run passes text through the phase's Func of each step in ms, in order,
// and returns the final text and one Step per step called. The trace is
// nil when no step ran.
//
// A step that returns Deny (however wrapped), returns any other error, or
// panics stops the chain: Run returns "", the trace of the steps before it,
// and a *DeniedError naming the step. Fail closed is deliberate; a
// filter that cannot judge the answer must not pass it.
//
// The context is checked before each step. Once it is done Run returns ""
// and an error wrapping context.Cause(ctx); that is not a denial. Neither is
// a non-Deny error from a step while the context is done: it is reported as
// the cancellation, wrapping both. A Deny or a panic is a denial regardless.
// Run does not wait for a step that ignores its context: when the context
// ends while a step runs, Run returns at once, and the step finishes on its
// own goroutine, which may outlive the call; its result is dropped.
//
// An unknown phase is an error (not a denial) and runs no step. Run does
// not check names; call Validate once when the list is built.
func Run(ctx context.Context, phase Phase, ms []Middleware, text string) (string, []Step, error) {
	if phase != PhaseInput && phase != PhaseOutput {
		return "", nil, fmt.Errorf("middleware: unknown phase %q", phase)
	}
	var trace []Step
	for i, m := range ms {
		f := m.Input
		if phase == PhaseOutput {
			f = m.Output
		}
		if f == nil {
			continue
		}
		if ctx.Err() != nil {
			return "", trace, fmt.Errorf("middleware: %s phase stopped before step %q: %w", phase, m.Name, context.Cause(ctx))
		}
		r, ok := call(ctx, f, text)
		out, pv, err := r.out, r.pv, r.err
		if !ok {
			return "", trace, fmt.Errorf("middleware: %s phase stopped in step %q: %w", phase, m.Name, context.Cause(ctx))
		}
		if pv != nil {
			err, _ := pv.(error)
			return "", trace, &DeniedError{Name: m.Name, Phase: phase, Reason: fmt.Sprint("panic: ", pv), Panic: pv, Err: err}
		}
		if err != nil {
			var d *denial
			if errors.As(err, &d) {
				return "", trace, &DeniedError{Name: m.Name, Phase: phase, Reason: d.reason, Err: err}
			}
			if ctx.Err() != nil {
				return "", trace, fmt.Errorf("middleware: %s phase stopped in step %q: %w (step error: %w)", phase, m.Name, context.Cause(ctx), err)
			}
			return "", trace, &DeniedError{Name: m.Name, Phase: phase, Reason: err.Error(), Err: err}
		}
		if trace == nil {
			trace = make([]Step, 0, len(ms)-i)
		}
		trace = append(trace, Step{Name: m.Name, Phase: phase, Changed: out != text, Why: r.why, Text: out})
		text = out
	}
	return text, trace, nil
}

// call runs one step, recovering a panic into pv. panic(nil) arrives as a
// *runtime.PanicNilError, so pv is non-nil for every panic. When ctx ends
// first, call returns at once with ok false and leaves the step running on
// its own goroutine: a step that ignores ctx cannot hold the caller.
func call(ctx context.Context, f Func, text string) (r outcome, ok bool) {
	n := &notes{}
	sctx := context.WithValue(ctx, notesKey{}, n)
	run := func() (r outcome) {
		defer func() {
			if p := recover(); p != nil {
				r.pv = p
			}
		}()
		r.out, r.err = f(sctx, text)
		return r
	}
	if ctx.Done() == nil { // never cancelled: no goroutine needed
		r = run()
	} else {
		c := make(chan outcome, 1)
		go func() { c <- run() }()
		select {
		case r = <-c:
		case <-ctx.Done():
			select {
			case r = <-c: // finished as ctx ended: keep its result
			default:
				n.close()
				return outcome{}, false
			}
		}
	}
	r.why = n.close()
	return r, true
}

// outcome is what one step did: its text and notes, or its panic or error.
type outcome struct {
	out, why string
	pv       any
	err      error
}

type notesKey struct{}

// notes collects one step's Explain calls. The mutex lets a step explain
// from its own goroutines; closed drops notes that arrive after it returned.
type notes struct {
	mu     sync.Mutex
	why    []string
	closed bool
}

func (n *notes) close() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed = true
	return strings.Join(n.why, "; ")
}

// Explain records why the running step changed, or did not change, the
// text; the note appears in the step's Step.Why, several notes joined with
// "; ". It does nothing when ctx did not come from Run, when why is empty,
// or after the step has returned, so a Func that explains also works when
// called directly.
func Explain(ctx context.Context, why string) {
	if why == "" {
		return
	}
	n, ok := ctx.Value(notesKey{}).(*notes)
	if !ok {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.closed {
		n.why = append(n.why, why)
	}
}
