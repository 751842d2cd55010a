package enforce

import "context"

// Loop drives any loop that produces final answers, without the agent
// package. produce is called for the first answer with corrective == "",
// and again after each failure with retries left, with the corrective
// message to show the model. Loop returns the accepted answer, the ledger
// rows, and an error: an *OutputError when the last answer fails, or
// produce's error (with the rows so far) when it fails, or the context's
// cause when ctx ends between attempts.
func Loop(ctx context.Context, s *Schema, retries int, produce func(ctx context.Context, corrective string) (string, error)) (string, []Attempt, error) {
	l, err := NewLedger(s, retries)
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
		v := l.Judge(Answer{Iteration: iteration, Given: answer})
		switch v.Row.Outcome {
		case OutcomePassed:
			return answer, l.Attempts(), nil
		case OutcomeExhausted:
			return answer, l.Attempts(), v.Err
		}
		corrective = v.Corrective
	}
}
