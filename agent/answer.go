package agent

import (
	"context"
	"strings"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/middleware"
)

// final handles a final answer; done reports whether the run ends.
// truncated says the answer was truncated at the model's output limit.
func (st *runState) final(ctx context.Context, iteration int, content string, truncated bool) (done bool, err error) {
	a, res := st.a, st.res
	out, steps, err := middleware.Run(ctx, middleware.PhaseOutput, a.cfg.middleware, content)
	res.Trace = append(res.Trace, steps...)
	if err != nil {
		res.Output = "" // a denied answer is never judged, nor returned
		return true, err
	}
	res.Output = out
	if st.schema == nil {
		if strings.TrimSpace(out) == "" {
			return true, ErrEmptyAnswer
		}
		return true, nil
	}
	m := st.model()
	ans := enforce.Answer{Iteration: iteration, Given: content, Last: res.Iterations >= a.cfg.maxIterations, Truncated: truncated, Cost: st.cost, FailedCalls: st.failedCalls(), Cut: st.cut, ReadBack: st.readBack, Provider: m.provider, Model: m.name, Mode: st.mode(), Thinking: st.thought}
	if st.free {
		ans.Free = true // asked in no form: no tool to call
	} else {
		ans.Tool, ans.NoCall = st.answerTool()
	}
	for _, s := range steps {
		if s.Changed {
			ans.Rewrites = append(ans.Rewrites, enforce.Rewrite{By: s.Name, Text: s.Text})
		}
	}
	if st.ledger == nil {
		// Not opted in: judged once, after the run, with no rows.
		if judgesAnswers(ctx) {
			// Rules may fix the answer: it passes as they left it.
			st.takeJudged(ctx)
			text, err := st.schema.Accept(ctx, ans)
			st.takeJudged(ctx)
			if err == nil {
				res.Output = text
			}
			return true, err
		}
		err := st.schema.Judge(ctx, ans)
		if err == nil && st.schema.Repairs() != 0 {
			res.Output, _ = st.schema.Repaired(out) // a choice's: the mended label
		}
		return true, err
	}
	if e := st.overBudget(true); e != nil {
		ans.Stop = e.Reason // no correction can be asked for
	} else if judgesAnswers(ctx) {
		// A judge's spend may reach a cap while it judges.
		ans.StopAfter = func() enforce.Reason {
			st.takeJudged(ctx)
			if e := st.overBudget(true); e != nil {
				return e.Reason
			}
			return ""
		}
	}
	st.takeJudged(ctx)
	v := st.ledger.Judge(ctx, ans)
	st.takeJudged(ctx)
	if v.Row.Outcome == "" {
		return true, v.Err // ctx ended while a validator ran: no row
	}
	if v.Row.Outcome == enforce.OutcomePassed {
		res.Output = v.Answer // as the repairs mended it, if they did
	}
	st.logRow(v.Row)
	a.recordRow(st.turn, v.Row, st.ledger.RetriesLeft())
	a.observeRow(ctx, v.Row)
	if v.Row.Outcome != enforce.OutcomeRetried {
		return true, v.Err
	}
	if a.cfg.latestOnly {
		for _, i := range st.lastPair {
			if st.skip == nil {
				st.skip = map[int]bool{}
			}
			st.skip[i] = true
		}
	}
	// Corrected in the mode the answer was given in, before moving on
	// may change the mode: the output tool's call gets the correction,
	// whatever the next model is asked in.
	st.correct(v.Corrective)
	st.escalateAfter(v.Row)
	return false, nil
}

// logRow logs a row at debug level with the members its JSON has: an
// empty stage, error, path, hash or brokenBy is left out, as in the row.
func (st *runState) logRow(r enforce.Attempt) {
	args := []any{"attempt", r.Attempt, "iteration", r.Iteration, "outcome", r.Outcome}
	for _, f := range [...]struct{ k, v string }{
		{"stage", string(r.Stage)}, {"error", r.Error}, {"path", r.Path},
		{"correctiveMessageHash", r.CorrectiveMessageHash}, {"brokenBy", r.BrokenBy}, {"withheld", r.Withheld}, {"reason", string(r.Reason)},
		{"provider", r.Provider}, {"model", r.Model},
	} {
		if f.v != "" {
			args = append(args, f.k, f.v)
		}
	}
	if r.Truncated {
		args = append(args, "truncated", true)
	}
	for _, f := range [...]struct {
		k string
		v int64
	}{{"inputTokens", int64(r.InputTokens)}, {"outputTokens", int64(r.OutputTokens)},
		{"cachedTokens", int64(r.CachedTokens)}, {"reasoningTokens", int64(r.ReasoningTokens)}, {"latencyMs", r.LatencyMs}} {
		if f.v != 0 {
			args = append(args, f.k, f.v)
		}
	}
	if r.Cut != nil {
		args = append(args, "cut", r.Cut)
	}
	st.a.cfg.logger.Debug("output attempt", args...)
}

// withheld ends the run on a reply that is no answer (a refusal, a content
// filter): nothing is judged, and with retries on the ledger records why.
func (st *runState) withheld(ctx context.Context, iteration int, resp Response) error {
	if st.ledger != nil {
		// Not judged, so nothing runs under the context.
		m := st.model()
		v := st.ledger.Judge(context.Background(), enforce.Answer{Iteration: iteration, Given: resp.Message.Content, Withheld: string(resp.Stop), Cost: st.cost, Provider: m.provider, Model: m.name, Mode: st.mode()})
		st.logRow(v.Row) // not recorded: output/schemaExhausted is for judged answers; turn/completed says why
		st.a.observeRow(ctx, v.Row)
	}
	return &RefusalError{Stop: resp.Stop, Raw: resp.StopRaw, Text: resp.Message.Content}
}
