// Package middleware runs named steps over an agent's text: the user's input
// before the model sees it, and the final answer before the caller does.
// Each step passes the text on, rewrites it (saying why with [Explain]), or
// denies it ([Deny]). [Run] applies one phase of an ordered list and returns
// a trace of what every step did, so a caller can tell which step first
// changed the text and how.
//
// The shortest real use:
//
//	redact := middleware.Middleware{
//		Name: "redact-emails",
//		Output: func(ctx context.Context, text string) (string, error) {
//			out := emailRE.ReplaceAllString(text, "[email]")
//			if out != text {
//				middleware.Explain(ctx, "redacted email addresses")
//			}
//			return out, nil
//		},
//	}
//	out, trace, err := middleware.Run(ctx, middleware.PhaseOutput, []middleware.Middleware{redact}, answer)
//
// # Denials
//
// Run fails closed: a step that denies, returns any other error or panics
// stops the chain, and Run returns "" with a [*DeniedError] naming the step,
// which matches [ErrDenied]. An answer a filter could not judge is never let
// through.
//
// # Tracing
//
// Each step that ran is a [Step] in the trace, with the text after it,
// whether it changed the text, and its [Explain] notes.
//
// # Cancellation
//
// A done context stops the chain with its cause, which is not a denial. Run
// does not wait for a step that ignores its context: the step finishes on
// its own goroutine, which may outlive the call, and its result is dropped.
//
// # Checking a list
//
// [Validate] checks names once, when the list is built; Run does not.
package middleware
