package enforce

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/enforcer-go/enforcer/enforce/internal/corrective"
	"github.com/enforcer-go/enforcer/fnv"
	"github.com/enforcer-go/enforcer/internal/exhaust"
)

// Outcome is what became of one final answer.
type Outcome string

const (
	// OutcomePassed: the answer kept the contract; the run returns it.
	OutcomePassed Outcome = "passed"
	// OutcomeRetried: it failed and a corrective turn was sent.
	OutcomeRetried Outcome = "retried"
	// OutcomeExhausted: it failed and no retry will follow — none were
	// left, a rewrite broke a valid answer (BrokenBy), it was truncated
	// twice in a row (Truncated), the model gave none (Withheld), or the
	// row's Reason says why. The answer stands.
	OutcomeExhausted Outcome = "exhausted"
)

// Reason says why an answer was exhausted other than by running out of
// retries, where no other field of its row (BrokenBy, Truncated,
// Withheld) says so. Its values are those of the session stream's
// events.ExhaustReason.
type Reason string

const (
	// ReasonRepeated ("repeated"): the answer failed with the same issues as the
	// answers before it, as many in a row as the repeat limit allows
	// ([WithRepeatLimit]): the model is not learning from the correction.
	ReasonRepeated Reason = exhaust.Repeated
	// ReasonBeyondRepair ("beyond-repair"): a validator said no correction can fix the
	// answer ([ErrBeyondRepair]).
	ReasonBeyondRepair Reason = exhaust.BeyondRepair
	// ReasonValidatorFailed ("validator-failed"): a validator could not judge the answer
	// ([ValidatorError]); the row's Error says why.
	ReasonValidatorFailed Reason = exhaust.ValidatorFailed
	// ReasonBudget ("budget"): what the failed answers cost, this one included,
	// passed the budget the caller set ([WithFailedCostBudget]).
	ReasonBudget Reason = exhaust.Budget
	// ReasonTokenBudget ("token-budget"), ReasonRequestBudget
	// ("request-budget"), ReasonMoneyBudget ("money-budget"): the whole
	// run reached a cap on its tokens, its model requests or its money,
	// so the caller sends no correction ([Answer.Stop]).
	ReasonTokenBudget   Reason = exhaust.TokenBudget
	ReasonRequestBudget Reason = exhaust.RequestBudget
	ReasonMoneyBudget   Reason = exhaust.MoneyBudget
	// ReasonTripwire ("tripwire"): a rule of [PolicyTripwire] found
	// issues ([ErrTripwire]); the *OutputError's Rule names it.
	ReasonTripwire Reason = exhaust.Tripwire
)

// budget reports whether r is a budget's reason: the failed answers' or
// the run's.
func (r Reason) budget() bool {
	return r == ReasonBudget || r == ReasonTokenBudget || r == ReasonRequestBudget || r == ReasonMoneyBudget
}

// Attempt is one row of the ledger: one final answer, in order.
type Attempt struct {
	Attempt               int     `json:"attempt"`   // 1-based within the run
	Iteration             int     `json:"iteration"` // the ReAct iteration that produced the answer
	Outcome               Outcome `json:"outcome"`
	Stage                 Stage   `json:"stage,omitempty"`                 // absent on a passing row
	Error                 string  `json:"error,omitempty"`                 // validator's own message, verbatim; absent on a passing row
	Path                  string  `json:"path,omitempty"`                  // JSON Pointer of the failing field, when known
	CorrectiveMessageHash string  `json:"correctiveMessageHash,omitempty"` // fnv.Hex32a of the corrective message; only on 'retried'
	BrokenBy              string  `json:"brokenBy,omitempty"`              // only on 'exhausted'
	// Truncated: the failing answer was truncated at the model's output
	// limit ([Answer.Truncated]); the stage and error are as judged.
	Truncated bool `json:"truncated,omitempty"`
	// Withheld: the model gave no answer, for this reason
	// ([Answer.Withheld]); only on 'exhausted', which then has no stage.
	Withheld string `json:"withheld,omitempty"`
	// Reason: why the answer was exhausted other than by running out of
	// retries, when no field above says so; only on 'exhausted'.
	Reason Reason `json:"reason,omitempty"`
	// Provider and Model name the model that wrote the answer, as its
	// adapter reports them ([Answer.Model]); empty when it reports none.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// Cost is what the model call that produced the answer spent
	// ([Answer.Cost]); its members sit in the row's JSON beside the others.
	Cost
	// Cut: the caller stopped reading the answer at an [Incremental]'s early
	// verdict ([Answer.Cut]), which the stage, error and path are; it
	// says how far the answer got. Its Verdict is not kept here.
	Cut *Cut `json:"cut,omitempty"`
	// Repaired names the repairs applied to the answer before it was
	// judged ([Schema.WithRepairs]), in order; absent when it was judged
	// as written. A passed row with repairs passed as mended.
	Repaired Repairs `json:"repaired,omitzero"`
	// ReadBack: members of the model's text read as left out before the
	// answer was judged ([Answer.ReadBack]); nil when none were.
	ReadBack *ReadBack `json:"readBack,omitempty"`
	// Kind is the output kind the answer was asked for: the contract's
	// ([Schema.Kind]), or for a JSON contract the one [WithKind] gives;
	// absent for one JSON value.
	Kind Kind `json:"kind,omitempty"`
	// Member is the member of a [Union] the answer chose: on a passed row
	// the one accepted; on a failing row the one it named, when it named
	// exactly one of the union's; absent otherwise ([Schema.Member]).
	Member string `json:"member,omitempty"`
	// Mode is the output mode the answer was asked in, when the caller
	// chose it per model ([Answer.Mode]): "native", "tool" or "prompted".
	Mode string `json:"mode,omitempty"`
	// Tool and CallID name the tool and the call of a tool call's row
	// ([CallLedger]); absent on an answer's.
	Tool   string `json:"tool,omitempty"`
	CallID string `json:"callId,omitempty"`
	// Thinking: the reply held thinking, kept apart from the answer and
	// not judged ([Answer.Thinking]); nil when it held none.
	Thinking *Thinking `json:"thinking,omitempty"`
	// Rules are the verdicts of the contract's validators on the answer
	// judged, in order; nil when none was asked. (A pointer, as Cut is,
	// so that rows stay comparable.)
	Rules *Rulings `json:"rules,omitempty"`
}

// ReadBack names the members removed from a model's text before it was
// judged: nulls a provider's native mode made the model write for
// optional members, read as those members left out. (A pointer on the
// row, as Cut is, so that rows stay comparable.)
type ReadBack struct {
	// Members are their JSON Pointers, in the order they came.
	Members []string `json:"members"`
}

// Cut says an answer was stopped before its end: an [Incremental] judging it as
// it arrived gave an early verdict, and the caller stopped reading there,
// so the model stopped writing (and being paid for).
type Cut struct {
	// Verdict is the Incremental's early verdict, the *CheckError its Write
	// returned. Only [Answer.Cut] carries it.
	Verdict *CheckError `json:"-"`
	// Bytes is the length of the answer up to and including the byte
	// that doomed it, where the Incremental gave its verdict: the answer the
	// ledger is given, and the model is shown. Bytes that came after it
	// in the same piece are not kept.
	Bytes int `json:"bytes"`
	// OutputTokens is the model's output tokens by then, when the
	// provider reported them before the cut; 0 when it did not.
	OutputTokens int `json:"outputTokens,omitempty"`
	// Thinking: the reply was stopped in its thinking, before any answer
	// (a degenerate stop that reads thinking); Bytes are the thinking's.
	Thinking bool `json:"thinking,omitempty"`
}

// Rewrite is one step that changed the model's answer after the model gave
// it (an act-output middleware), with the answer as that step left it.
type Rewrite struct {
	By   string // the step's name
	Text string // the answer after the step
}

// Answer is one final answer to judge.
type Answer struct {
	// Iteration is the loop iteration that produced it (1-based).
	Iteration int
	// Given is the answer as the model gave it, before any rewrite.
	Given string
	// Rewrites are the steps that changed it since, in order; the answer
	// that stands is the last one's Text, or Given when there are none.
	Rewrites []Rewrite
	// Last says no further answer can follow (the loop has no iteration
	// left for a corrective turn): a failing answer is exhausted even with
	// retries left, so no row claims a correction that is never sent.
	Last bool
	// Truncated says the answer was truncated at the model's output limit
	// (a provider's "length" or "max_tokens"). The prose and gather
	// repairs do not apply to it. A failing answer's row and error say
	// so, and its corrective message asks for a shorter answer; when the
	// answer before it was truncated too, it is exhausted at once,
	// retries unspent.
	Truncated bool
	// Withheld, when not empty, says why the model gave no answer at all
	// (a refusal, a content filter: the caller's word for it). Nothing is
	// judged: the row is exhausted, retries unspent, and names the reason.
	Withheld string
	// Cost is what the model call that produced the answer spent; the
	// row carries it as given.
	Cost Cost
	// FailedCalls is what the run's failed tool calls cost so far
	// ([FailedCost] of a [CallLedger]'s rows): it counts toward
	// [WithFailedCostBudget] beside the failed answers.
	FailedCalls Cost
	// Tool names the tool whose call carries the answer (tool-call
	// output): Given is that call's arguments, and a corrective message
	// asks for a call of the tool instead of a reply of only JSON.
	Tool string
	// NoCall says the reply made no call to Tool and answered in text
	// (Given). That fails at json-parse — no JSON value arrived where the
	// answer belongs — with one issue at the root, keyword "tool".
	NoCall bool
	// Cut, when not nil, says the caller stopped reading the answer at a
	// [Incremental]'s early verdict (Cut.Verdict): Given is the answer as far
	// as it arrived. The verdict is recorded as it stands, not judged
	// again: Check would judge the cut answer's end, not where it failed.
	// Its corrective message says the answer was stopped there.
	Cut *Cut
	// ReadBack lists the pointers of members removed from the model's
	// text before it became Given: nulls a provider's native mode made
	// the model write for optional members, read as those members left
	// out (the model's adapter does this, with the lowering's own
	// read-back). Given is the answer as read back; the row names them
	// ([Attempt.ReadBack]).
	ReadBack []string
	// Mode, when not empty, names the output mode the answer was asked
	// in (the agent's auto mode chooses one per model); the row carries
	// it as given.
	Mode string
	// Provider and Model name the model that wrote the answer; the row
	// carries them as given.
	Provider, Model string
	// Stop, when not empty, says the caller will send no correction for
	// a reason of its own (a run's budget reached): a failing answer is
	// exhausted with this reason, retries unspent. A passing one passes.
	Stop Reason
	// StopAfter, when not nil and Stop is empty, is asked once the rules
	// have judged a failing answer, before a correction is chosen: rules
	// that ask a model spend while they judge, and its reason stops the
	// run as Stop's does.
	StopAfter func() Reason
	// Thinking says how much thinking the reply held beside Given, which
	// holds none of it; the row carries it. When Given is blank after
	// thinking, at the output limit (Truncated), or after reasoning
	// tokens (Cost), the answer never came: it fails at [StageNoAnswer],
	// not json-parse, and its corrective message asks for the answer.
	Thinking Thinking
	// Free: the answer was asked for in no form (the agent's free step
	// before a format step) and Given is blank: it never came, whatever
	// the reply held, and its corrective message asks for it in no form.
	Free bool
}

// Text is the answer as it stands after every rewrite.
func (a Answer) Text() string {
	if n := len(a.Rewrites); n > 0 {
		return a.Rewrites[n-1].Text
	}
	return a.Given
}

// outputError is the error for a's failing answer.
func (a Answer) outputError(ce *CheckError, brokenBy string, attempts []Attempt) *OutputError {
	e := newOutputError(a.Text(), ce, brokenBy, attempts)
	e.Truncated = a.Truncated
	return e
}

// Verdict is what the ledger decided about one answer.
type Verdict struct {
	// Row is the row just recorded.
	Row Attempt
	// Corrective is the message to send the model as a user turn before
	// looping again; non-empty exactly when Row.Outcome is OutcomeRetried.
	// Row.CorrectiveMessageHash is fnv.Hex32a(Corrective).
	Corrective string
	// Answer is the answer judged: as it stands after every rewrite, and
	// mended as Row.Repaired says. For a passed row it is the answer to
	// use (decode); the conversation keeps what the model wrote.
	Answer string
	// Err is nil when the answer passed or will be retried, an
	// *OutputError when the run must stop with the answer failing, and a
	// *ValidatorError when a validator could not judge it. It is nil for
	// a withheld answer too: that was never judged, and the caller knows
	// why it stopped. When the context ended while a validator ran, Row
	// is zero (no row was recorded) and Err is the context's cause.
	Err error
}

// Ledger judges the final answers of one run against a contract with a
// retry budget, and records one Attempt row per answer. Use one Ledger per
// run; it is not safe for concurrent use.
type Ledger struct {
	schema  *Schema
	retries int
	repeats int  // WithRepeatLimit
	budget  Cost // WithFailedCostBudget; zero members: no limit
	kind    Kind // WithKind
	rows    []Attempt
	// last is the signature of the previous row's failure ("" when it
	// did not fail judged), and streak how many rows in a row failed so.
	last   string
	streak int
}

// LedgerOption configures a [Ledger]; pass it to [NewLedger] or [Loop].
type LedgerOption interface{ apply(*Ledger) error }

type ledgerOption func(*Ledger) error

func (f ledgerOption) apply(l *Ledger) error { return f(l) }

// WithRepeatLimit stops a run whose model repeats itself: when n answers
// in a row fail with the same issues (stage, pointers and keywords,
// whatever the messages say; at json-parse, the same kind of failure),
// the n-th is exhausted at once with [ReasonRepeated], its retries
// unspent, and its *OutputError matches [ErrRepeated]. n is 0 (off, the
// default) or 2..MaxRetries+1. Turn it on for a model that repeats itself,
// such as one at temperature 0.
func WithRepeatLimit(n int) LedgerOption {
	// What makes two failures the same, the kinds of json-parse failure
	// among them: see ledger_repeat.go.
	return ledgerOption(func(l *Ledger) error {
		if n != 0 && (n < 2 || n > MaxRetries+1) {
			return fmt.Errorf("enforce: WithRepeatLimit(%d): want 0 (off) or 2..%d", n, MaxRetries+1)
		}
		l.repeats = n
		return nil
	})
}

// WithKind says that the run's answers are of output kind k: each row
// says so, unless the contract is of a kind of its own ([Schema.Kind]),
// which its rows say instead.
func WithKind(k Kind) LedgerOption {
	return ledgerOption(func(l *Ledger) error {
		l.kind = k
		return nil
	})
}

// WithFailedCostBudget stops a run whose failed answers cost more than b:
// the failing answer that takes the failed rows' cost ([FailedCost]),
// with its [Answer.FailedCalls], past a non-zero member of b is exhausted at once with [ReasonBudget],
// retries unspent; its *OutputError matches [ErrBudget]. Every member is
// a limit of its own, CachedTokens and ReasoningTokens too. A negative
// member is an error.
func WithFailedCostBudget(b Cost) LedgerOption {
	return ledgerOption(func(l *Ledger) error {
		if b.negative() {
			return fmt.Errorf("enforce: WithFailedCostBudget(%+v): a limit is negative", b)
		}
		l.budget = b
		return nil
	})
}

// overBudget reports whether the failed rows and row, a failing one,
// cost more than the budget allows.
func (l *Ledger) overBudget(row Attempt, calls Cost) bool {
	if l.budget == (Cost{}) {
		return false
	}
	return l.budget.passedBy(FailedCost(append(l.Attempts(), row, Attempt{Outcome: OutcomeRetried, Cost: calls})))
}

// passedBy reports whether spent passes a non-zero member of the budget b.
func (b Cost) passedBy(spent Cost) bool {
	over := func(spent, limit int64) bool { return limit > 0 && spent > limit }
	return over(int64(spent.InputTokens), int64(b.InputTokens)) ||
		over(int64(spent.OutputTokens), int64(b.OutputTokens)) ||
		over(int64(spent.CachedTokens), int64(b.CachedTokens)) ||
		over(int64(spent.ReasoningTokens), int64(b.ReasoningTokens)) ||
		over(spent.LatencyMs, b.LatencyMs) ||
		b.Money > 0 && spent.Money > b.Money
}

// NewLedger returns a ledger for a run that opted into retries (0 to
// MaxRetries). A run that did not opt in has no ledger: judge its answer
// with [Schema.Judge].
func NewLedger(s *Schema, retries int, opts ...LedgerOption) (*Ledger, error) {
	if s == nil {
		return nil, errors.New("enforce: NewLedger needs a schema")
	}
	if retries < 0 || retries > MaxRetries {
		return nil, fmt.Errorf("%w: %d is not in 0..%d", ErrRetries, retries, MaxRetries)
	}
	l := &Ledger{schema: s, retries: retries}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.apply(l); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// Attempts returns a copy of the rows recorded so far, never nil.
func (l *Ledger) Attempts() []Attempt {
	return append(make([]Attempt, 0, len(l.rows)), l.rows...)
}

// RetriesLeft is how many corrective turns the ledger may still send.
func (l *Ledger) RetriesLeft() int {
	used := 0
	for _, r := range l.rows {
		if r.Outcome == OutcomeRetried {
			used++
		}
	}
	return l.retries - used
}

// Judge judges one final answer (the schema, then its validators) and
// records its row. The row is passed when it keeps the contract; when it
// fails, exhausted at once, retries unspent, if a rewrite broke the
// model's passing answer (BrokenBy), a rule's tripwire trips
// ([PolicyTripwire]), a validator says [ErrBeyondRepair],
// the repeat limit or the budget is reached ([WithRepeatLimit],
// [WithFailedCostBudget]), or it is truncated again ([Answer.Truncated]);
// else retried, with [Verdict.Corrective], while retries are left, and
// exhausted when none are. A withheld answer is not judged, nor is a cut
// one ([Answer.Withheld], [Answer.Cut]). When act-output rewrote an
// answer the model got wrong too, the row and messages describe the
// model's own answer. A validator that fails gives a
// [ReasonValidatorFailed] row and a *[ValidatorError]; when ctx ends
// while one runs, no row is recorded and Verdict.Err is
// context.Cause(ctx).
func (l *Ledger) Judge(ctx context.Context, a Answer) Verdict {
	// The model's own answer (Given) is judged again only on the failure
	// path, and only when rewrites changed it: the model can see and fix
	// its own text, not the rewrite. Truncated answers never loop: asked
	// again under the same limit, a second in a row would most likely be
	// truncated again.
	row := Attempt{Attempt: len(l.rows) + 1, Iteration: a.Iteration, Cost: a.Cost, Kind: l.kind, Mode: a.Mode, Provider: a.Provider, Model: a.Model}
	if k := l.schema.Kind(); k != "" {
		row.Kind = k // a contract of a Kind says its own
	}
	if len(a.ReadBack) > 0 {
		row.ReadBack = &ReadBack{Members: slices.Clone(a.ReadBack)}
	}
	if a.Thinking != (Thinking{}) {
		t := a.Thinking
		row.Thinking = &t
	}
	if a.Withheld != "" {
		row.Outcome, row.Withheld = OutcomeExhausted, a.Withheld
		return l.record(row, "", Verdict{Answer: a.Text()})
	}
	at := Try{Attempt: row.Attempt}
	if !a.Last {
		at.RetriesLeft = l.RetriesLeft()
	}
	j := l.schema.judgeAnswer(ctx, a, at)
	switch {
	case j.stopped != nil:
		return Verdict{Err: j.stopped}
	case j.failed != nil:
		row.Outcome, row.Stage, row.Error, row.Reason, row.Rules = OutcomeExhausted, StageSchemaValidate, quote(j.failed.text()), ReasonValidatorFailed, rulings(j.rules)
		return l.record(row, "", Verdict{Err: j.failed, Answer: a.Text()})
	case j.ce == nil:
		row.Outcome, row.Repaired, row.Member, row.Rules = OutcomePassed, j.repaired, l.schema.Member(j.text), rulings(j.rules)
		return l.record(row, "", Verdict{Answer: j.text})
	}
	if !a.NoCall && a.Cut == nil {
		row.Member = l.schema.Member(a.Text())
	}
	ce := j.ce
	row.Stage, row.Error, row.Path, row.Repaired = ce.Stage, ce.Issues[0].Message, ce.Path(), ce.Repaired
	row.Truncated, row.Rules = a.Truncated, rulings(j.rules)
	if a.Cut != nil {
		row.Cut = &Cut{Bytes: a.Cut.Bytes, OutputTokens: a.Cut.OutputTokens, Thinking: a.Cut.Thinking}
	}
	sig := ce.signature(a.Truncated)
	fail := func(reason Reason, brokenBy string) Verdict {
		row.Outcome, row.Reason, row.BrokenBy = OutcomeExhausted, reason, brokenBy
		l.record(row, sig, Verdict{})
		e := a.outputError(ce, brokenBy, l.Attempts())
		e.Reason = reason
		if reason == ReasonTripwire {
			e.Rule = ce.tripwire
		}
		return Verdict{Row: row, Err: e, Answer: a.Text()}
	}
	switch {
	case j.brokenBy != "":
		return fail("", j.brokenBy)
	case ce.tripwire != "":
		return fail(ReasonTripwire, "")
	case ce.beyondRepair:
		return fail(ReasonBeyondRepair, "")
	}
	truncatedAgain := a.Truncated && len(l.rows) > 0 && l.rows[len(l.rows)-1].Truncated
	left := l.RetriesLeft()
	if left <= 0 || a.Last || truncatedAgain {
		return fail("", "")
	}
	if l.repeats > 0 && sig == l.last && l.streak+1 >= l.repeats {
		return fail(ReasonRepeated, "")
	}
	if row.Outcome = OutcomeRetried; l.overBudget(row, a.FailedCalls) {
		return fail(ReasonBudget, "")
	}
	if a.Stop == "" && a.StopAfter != nil {
		a.Stop = a.StopAfter()
	}
	if a.Stop != "" {
		return fail(a.Stop, "")
	}
	msg := corrective.ForTool(ce.corrective(row.Attempt, l.retries+1, a.Truncated, row.Cut), ce.reply(), a.Tool, l.schema.Members(), a.NoCall)
	row.Outcome = OutcomeRetried
	row.CorrectiveMessageHash = fnv.Hex32a(msg)
	return l.record(row, sig, Verdict{Corrective: msg, Answer: a.Text()})
}

// record appends row, whose failure has signature sig ("" for a row
// that did not fail judged), and returns v with it.
func (l *Ledger) record(row Attempt, sig string, v Verdict) Verdict {
	switch {
	case sig == "":
		l.streak = 0
	case sig == l.last:
		l.streak++
	default:
		l.streak = 1
	}
	l.last = sig
	l.rows = append(l.rows, row)
	v.Row = row
	return v
}

// early is the verdict of a cut answer, nil for one to judge.
func (a Answer) early() *CheckError {
	if a.Cut == nil {
		return nil
	}
	return a.Cut.Verdict
}
