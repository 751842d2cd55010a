package agent

import (
	"context"
	"fmt"

	"github.com/enforcer-go/enforcer/enforce"
)

// Escalation is a chain of models to move a run on to, after the agent's
// own, and the rules for moving on. Each rule that is set moves the run
// from the model that answers to the next one in Models, once per
// event; on the last model the rules do nothing more, and the run goes
// on (or ends) as it would without them.
type Escalation struct {
	// Models are the models to move to, in order. Each adapter lowers the
	// conversation for its own provider.
	Models []Model
	// AfterFailures moves on once the model has written this many
	// retried rows (0: never for that): failed answers a correction
	// follows, and failed tool calls ([Result.Calls]), each one. Needs
	// [WithOutputRetries] or [WithTools].
	AfterFailures int
	// OnRow moves on after a retried row, an answer's or a call's, when
	// it reports true; the row names the model that wrote it
	// (enforce.Attempt.Model).
	OnRow func(row enforce.Attempt) bool
	// OnError moves on when a model call failed with err, after any
	// [WithModelRetry] tries of it (the next model gets the same request,
	// with tries of its own): say, a refusal of the output mode (a
	// [*ProviderError] of kind bad_request), or rate limits that
	// outlasted the retries (kind rate_limit).
	OnError func(err error) bool
	// OnRefusal moves on when the model refuses or a content filter
	// stops it ([StopRefusal], [StopContentFilter]): the refusal stays in
	// [Result.Messages] but is not sent to the next model, and no row is
	// written for it.
	OnRefusal bool
}

// WithEscalation runs the conversation on a chain of models: the agent's
// own first, then e.Models in order, moving on by e's rules. Moving on
// keeps the conversation (failed answers and corrective turns go with
// it), the ledger and the budgets: retries are spent as given across the
// chain, so an exhausted row means none are left on any model. Each row
// names the model that wrote it (its adapter's ProviderName and
// ModelName), as do the ledger events; [Result.Models] says what each
// model spent. A turn run again under [WithTurnRetry] starts a fresh
// conversation on the model the chain had reached. Models empty or
// holding nil, AfterFailures outside
// 0..enforce.MaxRetries, or no rule set make Run return an error
// matching [ErrInvalidOption].
func WithEscalation(e Escalation) Option {
	return optionFunc(func(c *config) {
		switch {
		case len(e.Models) == 0:
			c.invalid("WithEscalation: no Models")
		case e.AfterFailures < 0 || e.AfterFailures > enforce.MaxRetries:
			c.invalid("WithEscalation: AfterFailures %d: want 0..%d", e.AfterFailures, enforce.MaxRetries)
		case e.AfterFailures == 0 && e.OnRow == nil && e.OnError == nil && !e.OnRefusal:
			c.invalid("WithEscalation: no rule to move on by")
		}
		for i, m := range e.Models {
			if m == nil {
				c.invalid("WithEscalation: Models[%d] is nil", i)
			}
		}
		e.Models = append([]Model(nil), e.Models...)
		c.escalation = &e
	})
}

// chainModel is one model of the chain, with the names its adapter
// reports.
type chainModel struct {
	m              Model
	provider, name string
	price          *Price // by [WithPrices]; nil: none
}

// named asks m for its names.
func named(m Model) chainModel {
	c := chainModel{m: m}
	if p, ok := m.(interface{ ProviderName() string }); ok {
		c.provider = p.ProviderName()
	}
	if n, ok := m.(interface{ ModelName() string }); ok {
		c.name = n.ModelName()
	}
	return c
}

// chain is one turn's place in the agent's chain of models, and what
// each spent.
type chain struct {
	models   []chainModel
	at       int // the model that answers
	failures int // retried rows models[at] wrote
	spend    spend
	one      [1]ModelSpend // spend.models of a chain of one, saving an allocation
}

// newChain starts a turn on the agent's first model.
func (a *Agent) newChain() *chain {
	c := &chain{models: a.chain}
	switch {
	case a.cfg.format != nil:
		// The format step's row follows the chain's.
		c.spend.models = make([]ModelSpend, len(a.chain)+1)
		c.spend.models[len(a.chain)].Format = true
	case len(a.chain) == 1:
		c.spend.models = c.one[:]
	default:
		c.spend.models = make([]ModelSpend, len(a.chain))
	}
	for i, m := range a.chain {
		c.spend.models[i].Provider, c.spend.models[i].Model = m.provider, m.name
	}
	return c
}

// model is the model that answers.
func (st *runState) model() chainModel {
	if st.format != nil && st.format.on {
		return st.format.model
	}
	return st.chain.models[st.chain.at]
}

// moveOn moves the run to the next model, and reports whether there was
// one.
func (st *runState) moveOn(why string) bool {
	c := st.chain
	if c.at+1 >= len(c.models) {
		return false
	}
	c.at++
	c.failures = 0
	m := c.models[c.at]
	if f := st.format; f != nil && f.on {
		// The step that failed moves ([WithFormatStep]): the next model
		// formats, in the format step's conversation, the free answer
		// kept.
		f.model, f.moved = m, true
	}
	st.a.cfg.logger.Debug("escalated", "turn", st.turn, "why", why, "provider", m.provider, "model", m.name)
	if st.auto != nil {
		st.chooseMode() // the next model may take other modes
	}
	return true
}

// escalateAfter moves on after row, a retried one (an answer's or a
// call's: each counts as one failure), when a rule says so, and reports
// whether it did.
func (st *runState) escalateAfter(row enforce.Attempt) bool {
	e := st.a.cfg.escalation
	if e == nil {
		return false
	}
	st.chain.failures++
	switch {
	case e.AfterFailures > 0 && st.chain.failures >= e.AfterFailures:
		return st.moveOn(fmt.Sprintf("%d failed answers and calls", st.chain.failures))
	case e.OnRow != nil && st.ask("OnRow", func() bool { return e.OnRow(row) }):
		return st.moveOn("OnRow")
	}
	return false
}

// mayMoveOn reports whether a retried row written now may move the run
// to the next model: its correction is then no request of this model's,
// and nothing this model's calls proved holds of it ([WithBudget]). An
// OnRow rule is not asked before the row exists, so it may.
func (st *runState) mayMoveOn() bool {
	e := st.a.cfg.escalation
	if e == nil || st.chain.at+1 >= len(st.chain.models) {
		return false
	}
	return e.AfterFailures > 0 && st.chain.failures+1 >= e.AfterFailures || e.OnRow != nil
}

// escalateOnError moves on after a model call failed with err, when a
// rule says so.
func (st *runState) escalateOnError(ctx context.Context, err error) bool {
	e := st.a.cfg.escalation
	if e == nil || e.OnError == nil || context.Cause(ctx) != nil {
		return false
	}
	return st.ask("OnError", func() bool { return e.OnError(err) }) && st.moveOn("OnError")
}

// escalateOnRefusal moves on after a refusal, when a rule says so.
func (st *runState) escalateOnRefusal() bool {
	e := st.a.cfg.escalation
	return e != nil && e.OnRefusal && st.moveOn("refusal")
}

// ask calls a rule of the caller's; one that panics says no (the panic
// is logged): a broken rule must not crash the run.
func (st *runState) ask(what string, f func() bool) (yes bool) {
	defer func() {
		if r := recover(); r != nil {
			st.a.cfg.logger.Error("escalation rule panicked; not moving on", "rule", what, "panic", fmt.Sprint(r))
			yes = false
		}
	}()
	return f()
}

// skipMessage keeps message i of the conversation out of every later
// request.
func (st *runState) skipMessage(i int) {
	if st.skip == nil {
		st.skip = map[int]bool{}
	}
	st.skip[i] = true
}
