package middleware

import (
	"context"
	"errors"
	"strconv"
)

// Func is one phase of a step. It returns the text to pass on, which may be
// the text it was given. To refuse the text it returns Deny(reason).
type Func func(ctx context.Context, text string) (string, error)

// Middleware is a named step. Either Func may be nil: Run skips a step that
// has no Func for the phase it runs. Name identifies the step in a trace and
// in a DeniedError; Validate checks that names are present and unique.
type Middleware struct {
	Name   string
	Input  Func // optional: sees the user input
	Output Func // optional: sees the final answer (act output)
}

// Phase says which Func of each Middleware Run calls.
type Phase string

const (
	PhaseInput  Phase = "input"  // Middleware.Input, on the user's input
	PhaseOutput Phase = "output" // Middleware.Output, on the final answer
)

// ErrDenied is what every *DeniedError matches with errors.Is, and what
// Deny's error matches too.
var ErrDenied = errors.New("middleware: denied")

// Deny returns the error a step returns to refuse the text. Run finds it
// with errors.As, so a step may wrap it (fmt.Errorf("pii: %w", Deny(r)));
// reason becomes DeniedError.Reason and should be short and safe to show.
func Deny(reason string) error {
	return &denial{reason: reason}
}

// denial is unexported so that only the runner builds a DeniedError, which
// always names a step and a phase.
type denial struct{ reason string }

func (d *denial) Error() string {
	if d.reason == "" {
		return ErrDenied.Error()
	}
	return ErrDenied.Error() + ": " + d.reason
}

func (d *denial) Is(target error) bool { return target == ErrDenied }

// DeniedError is what Run returns when a step stopped the chain: it returned
// Deny, returned any other error, or panicked. All three deny, so that a
// failing filter never lets an answer through.
type DeniedError struct {
	Name   string // the step that denied
	Phase  Phase
	Reason string // Deny's reason; else the error's text; else "panic: " and the value
	Panic  any    // the recovered value when the step panicked, else nil
	Err    error  // the step's error as returned (or the panic value when it is an error), else nil
}

func (e *DeniedError) Error() string {
	msg := "middleware: " + string(e.Phase) + " step " + strconv.Quote(e.Name) + " denied"
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// Unwrap returns Err. errors.Is(e.Err, ErrDenied) holds only for an explicit
// Deny, which tells a step's decision apart from a step that failed or
// panicked.
func (e *DeniedError) Unwrap() error { return e.Err }

// Is reports whether target is ErrDenied.
func (e *DeniedError) Is(target error) bool { return target == ErrDenied }
