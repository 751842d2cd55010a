package agent

import (
	"context"
	"fmt"

	"github.com/enforcer-go/enforcer/enforce"
)

// RunChoice runs the agent for one label of the choice its contract is
// ([WithOutputSchema] of an enforce.Choice) and returns the label as an
// L, a string type of the caller's (type Sentiment string). The model is
// asked, in the mode's own way, for one label: in prompted output a list
// of the labels and their descriptions, in a native mode and with
// [WithOutputTool] the choice's object form {"label": …}, whose schema
// has the labels as an enum. Each answer is judged as enforce.Choice
// reads it, with a row per answer ([WithOutputRetries]) whose Kind is
// "choice"; with [WithRepairs] of enforce.RepairLabel a near-miss
// ("Positive." for positive) is read as its label, and the row says so.
// An agent without a choice's contract makes RunChoice return an error
// matching [ErrInvalidOption] before the model is called; other errors
// are as [Agent.Run]'s.
func RunChoice[L ~string](ctx context.Context, a *Agent, input string) (L, *Result, error) {
	return runKind[L](ctx, a, input, enforce.KindChoice, "RunChoice needs WithOutputSchema(enforce.Choice(…))")
}

// RunMultiLabel is [RunChoice] for a set of labels: the agent's contract
// is an enforce.MultiLabel, the answer one or more of its labels, each
// at most once, returned in the order the model gave them.
func RunMultiLabel[L ~string](ctx context.Context, a *Agent, input string) ([]L, *Result, error) {
	return runKind[[]L](ctx, a, input, enforce.KindMultiLabel, "RunMultiLabel needs WithOutputSchema(enforce.MultiLabel(…))")
}

// runKind runs a, whose contract must be of kind k (else the error
// need), and decodes the accepted answer as its kind reads it.
func runKind[T any](ctx context.Context, a *Agent, input string, k enforce.Kind, need string) (T, *Result, error) {
	var zero T
	if len(a.cfg.errs) == 0 && (a.cfg.schema == nil || a.cfg.schema.Kind() != k) {
		err := fmt.Errorf("%w: %s", ErrInvalidOption, need)
		res := &Result{TurnID: turnID(ctx)}
		a.refused(ctx, input, res, err)
		return zero, res, err
	}
	res, err := a.run(ctx, input, nil, nil)
	if err != nil {
		return zero, res, err
	}
	var v T
	if err := a.cfg.schema.Decode(res.Output, &v); err != nil {
		return zero, res, err
	}
	return v, res, nil
}
