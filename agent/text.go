package agent

import (
	"context"

	"github.com/enforcer-go/enforcer/enforce"
)

// RunText runs the agent for a plain-text answer held to the rules of
// its contract ([WithOutputSchema] of an enforce.Text) and returns the
// text as the model wrote it (after act-output middleware). The model
// is told the rules in words; no JSON Schema is sent (Request.OutputSchema
// is nil), [WithOutputTool] is refused, and [WithAutoOutputMode] chooses
// prompted output. Each answer is judged as enforce.Text says, with a
// row per answer ([WithOutputRetries]) whose Kind is "text" and whose
// stage is schema-validate, and a corrective turn listing each broken
// rule; a streamed answer is cut at the byte that breaks a MaxLength,
// MaxBytes or MustNotContain rule ([WithEarlyAbort]). An agent without
// a text contract makes RunText return an error matching
// [ErrInvalidOption] before the model is called; other errors are as
// [Agent.Run]'s.
func RunText(ctx context.Context, a *Agent, input string) (string, *Result, error) {
	return runKind[string](ctx, a, input, enforce.KindText, "RunText needs WithOutputSchema(enforce.Text(…))")
}
