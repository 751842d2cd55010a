package enforce

import "context"

// Loop drives any loop that produces final answers, without the agent
// package. produce is called for the first answer with corrective == "",
// and again after each failure with retries left, with the corrective
// message to show the model. Loop returns the accepted answer (as the
// schema's repairs mended it, [Schema.WithRepairs]), the ledger
// rows, and an error: an *OutputError when the last answer fails, or
// produce's error (with the rows so far) when it fails, or the context's
// cause when ctx ends between attempts or while a validator runs, or a
// *ValidatorError when a validator fails. The schema's validators
// ([Schema.WithValidators]) run on every answer that keeps the schema;
// opts configure the ledger (see [WithRepeatLimit]). The rows carry no
// [Cost]: Loop cannot see the model call inside produce. To record what
// each answer cost, drive a [Ledger] and set [Answer.Cost].
func Loop(ctx context.Context, s *Schema, retries int, produce func(ctx context.Context, corrective string) (string, error), opts ...LedgerOption) (string, []Attempt, error) {
	l, err := NewLedger(s, retries, opts...)
	if err != nil {
		return "", nil, err
	}
	corrective := ""
	for iteration := 1; ; iteration++ {
		if err := context.Cause(ctx); err != nil {
			return "", l.Attempts(), err
		}
		answer, err := produce(ctx, corrective)
		if err != nil {
			return "", l.Attempts(), err
		}
		v := l.Judge(ctx, Answer{Iteration: iteration, Given: answer})
		switch v.Row.Outcome {
		case "":
			return "", l.Attempts(), v.Err // ctx ended while a validator ran
		case OutcomePassed:
			return v.Answer, l.Attempts(), nil // as the schema's repairs mended it
		case OutcomeExhausted:
			return answer, l.Attempts(), v.Err
		}
		corrective = v.Corrective
	}
}
