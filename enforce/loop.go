package enforce

import "context"

// Loop drives any loop that produces final answers through a [Ledger].
// produce is called with corrective "" for the first answer, and again
// with the corrective message after each failure with retries left. Loop
// returns the accepted answer (as repairs mended it), the rows, and an
// error: the last answer's *OutputError, produce's error, a
// *ValidatorError, or the context's cause. Its rows carry no [Cost]: to
// record it, drive a Ledger and set [Answer.Cost].
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
