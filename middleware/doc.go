// Package middleware runs named steps over an agent's text: the user's input
// before the model sees it, and the final answer before the caller does.
// Each step passes the text on, rewrites it (saying why with Explain), or
// denies it (Deny). Run applies one phase of an ordered list and returns a
// trace of what every step did, so a caller can tell which step first
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
// Run fails closed: a step that denies, returns any other error or panics
// stops the chain, and Run returns "" with a *DeniedError naming the step.
// An answer a filter could not judge is never let through.
package middleware
