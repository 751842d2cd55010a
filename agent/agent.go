package agent

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/middleware"
)

// Agent runs a ReAct loop over a Model. It is immutable after New and safe
// for concurrent use: each Run has its own conversation and ledger.
type Agent struct {
	cfg   config
	specs []ToolSpec
	// chain is the agent's model, then [WithEscalation]'s, with their
	// names.
	chain []chainModel
	// formatter is [WithFormatStep]'s model, nil when none was named.
	formatter *chainModel
	// contract is the [WithOutputSchema] contract's text, made once in New;
	// contracts holds those of the schemas [RunTyped] brings
	// (*enforce.Schema → *contract), one per schema, made on first use.
	contract  *contract
	contracts sync.Map
	// validated holds the schemas RunTyped brings with [WithValidators]
	// joined (*enforce.Schema → *enforce.Schema), one per schema.
	validated sync.Map
}

// New returns an agent for m. Options are checked here; an invalid option
// does not panic, it makes Run return an error matching [ErrInvalidOption].
func New(m Model, opts ...Option) *Agent {
	a := &Agent{}
	for _, o := range opts {
		if o != nil {
			o.apply(&a.cfg)
		}
	}
	if m == nil {
		a.cfg.invalid("New: nil Model")
	}
	a.cfg.finish()
	a.chain = []chainModel{named(m)}
	if e := a.cfg.escalation; e != nil {
		for _, m := range e.Models {
			a.chain = append(a.chain, named(m))
		}
	}
	for i := range a.chain {
		if p, ok := a.cfg.prices[a.chain[i].name]; ok {
			a.chain[i].price = &p
		}
	}
	if f := a.cfg.format; f != nil && f.m != nil {
		m := named(f.m)
		if p, ok := a.cfg.prices[m.name]; ok {
			m.price = &p
		}
		a.formatter = &m
	}
	if a.cfg.schema != nil && len(a.cfg.validators) > 0 {
		if s, err := a.cfg.schema.WithValidators(a.cfg.validators...); err != nil {
			a.cfg.invalid("WithValidators: %v", err)
		} else {
			a.cfg.schema = s
		}
	}
	if a.cfg.schema != nil && a.cfg.repairs != 0 {
		a.cfg.schema = a.cfg.schema.WithRepairs(a.cfg.repairs)
	}
	for _, t := range a.cfg.tools {
		spec := t.spec()
		spec.Parameters = forModel(spec.Parameters)
		a.specs = append(a.specs, spec)
	}
	// Every request shares specs: clipped, a model's append to
	// Request.Tools copies instead of writing into it.
	a.specs = slices.Clip(a.specs)
	if a.cfg.schema != nil {
		a.contract = a.newContract(a.cfg.schema)
	}
	return a
}

// Result is what a run did. Run and [RunTyped] return a non-nil *Result
// whenever the model was called, also alongside an error, so the ledger
// and the conversation are always inspectable.
type Result struct {
	// TurnID names the run in recorded events (see [ContextWithTurnID]).
	TurnID string `json:"turnId"`
	// TurnAttempts counts runs of the whole turn ([WithTurnRetry]); Result
	// describes the last one, except Usage, which sums them all, and
	// Attempts, which holds the rows of all of them in order.
	TurnAttempts int `json:"turnAttempts"`
	// Input is the user's input as given to Run, before input middleware.
	Input string `json:"input"`
	// Output is the final answer as it stands after act-output
	// middleware; when it passed mended ([WithRepairs]), as mended.
	Output string `json:"output"`
	// Messages is the whole conversation, including failed answers and
	// corrective turns that [WithLatestRetryOnly] did not re-send.
	Messages []Message `json:"messages"`
	// Iterations counts the ReAct iterations of the (last) run of the turn:
	// one per model reply. Calls retried under [WithModelRetry] count once.
	Iterations int `json:"iterations"`
	// Attempts is the ledger: one row per final answer. Nil unless the
	// agent has [WithOutputRetries].
	Attempts []enforce.Attempt `json:"attempts,omitzero"`
	// InputRules are the verdicts of the rules on the (last) run's input
	// ([WithInputRules]), in order, as a row's Rules are; nil without
	// input rules, or when the run ended before they judged.
	InputRules []enforce.Ruling `json:"inputRules,omitzero"`
	// Calls is the ledger of the (last) run's tool calls: one row per
	// call of a tool the agent has, in order, each judged against the
	// tool's parameters (Kind enforce.KindToolCall, with Tool and CallID).
	// Nil when no tool was called.
	Calls []enforce.Attempt `json:"calls,omitzero"`
	// Usage is summed over every model call, failed ones included.
	Usage Usage `json:"usage"`
	// Modes lists the output modes [WithAutoOutputMode] chose, in order:
	// the first, then each move from a mode the provider refused. Nil
	// without it.
	Modes []ModeChoice `json:"modes,omitzero"`
	// Models says what each model called spent, in the order of the
	// chain ([WithEscalation]; without it, the one model), over the
	// whole turn like Usage.
	Models []ModelSpend `json:"models,omitzero"`
	// Money is what the whole turn's calls cost by [WithPrices]; 0
	// without prices.
	Money float64 `json:"money,omitempty"`
	// FailedCost is what the rows that did not pass spent, answers' and
	// calls' (enforce.FailedCost of Attempts and Calls): zero without
	// failures.
	FailedCost enforce.Cost `json:"failedCost,omitzero"`
	// Trace lists what act middleware did, in order, for input and output.
	Trace []middleware.Step `json:"trace,omitzero"`
}

// Run runs the loop on input until the model gives a final answer that
// passes (without a schema, any non-empty final answer). The answer goes
// through act-output middleware and is judged (see the package doc); a
// failing one returns an *enforce.OutputError, with rows under
// [WithOutputRetries]. A denied answer is never judged and gets no row:
// Run returns the [*middleware.DeniedError]. When ctx ends, Run returns
// context.Cause(ctx) at once with the rows so far. The *Result is
// non-nil whenever the model was called, also beside an error.
func (a *Agent) Run(ctx context.Context, input string) (*Result, error) {
	return a.run(ctx, input, nil, nil)
}

// RunTyped runs the agent and decodes the accepted answer into T. Without
// [WithOutputSchema] the contract is enforce.SchemaFor[T].
//
// With it, the schema given is the contract the model is sent, and T is
// held to it as well ([enforce.Schema.For]); where the two disagree, an
// answer must satisfy both. An answer the schema refuses fails, whatever
// T would take; one that keeps the schema but holds a value T cannot
// ("three" for an int field) fails at schema-validate at that value's
// pointer, as any failing answer does (with [WithOutputRetries], a row
// and a corrective turn), so a schema no answer of T can keep spends
// every retry. A member T lacks is dropped
// when decoding, and one of T's the schema leaves out stays zero. A
// schema reflected from another type (enforce.SchemaFor[U]) is refused
// before the model is called, with an error matching [ErrInvalidOption]
// that carries the *enforce.SchemaError. Errors are as [Agent.Run]'s.
func RunTyped[T any](ctx context.Context, a *Agent, input string) (T, *Result, error) {
	return runTyped[T](ctx, a, input, nil)
}

// runTyped is [RunTyped], with watch (when not nil) shown each streamed
// answer as it forms.
func runTyped[T any](ctx context.Context, a *Agent, input string, watch watcher) (T, *Result, error) {
	var zero T
	var schema *enforce.Schema
	if len(a.cfg.errs) == 0 {
		var err error
		if a.cfg.schema == nil {
			if schema, err = enforce.SchemaFor[T](); err == nil {
				schema, err = a.withValidators(schema)
			}
		} else if schema, err = a.cfg.schema.For(reflect.TypeFor[T]()); err != nil {
			err = fmt.Errorf("%w: WithOutputSchema does not fit RunTyped[%v]: %w", ErrInvalidOption, reflect.TypeFor[T](), err)
		}
		if err == nil {
			err = elementsOf(ctx).check(schema)
		}
		if err != nil {
			res := &Result{TurnID: turnID(ctx)}
			a.refused(ctx, input, res, err)
			return zero, res, err
		}
	}
	res, err := a.run(ctx, input, schema, watch)
	if err != nil {
		return zero, res, err
	}
	var v T
	if err := schema.Decode(res.Output, &v); err != nil {
		return zero, res, err
	}
	return v, res, nil
}

// runState is one run's mutable state.
type runState struct {
	a *Agent
	// inputVerdict waits for the input rules' verdict, until the first
	// call returns ([WithInputRules]); then nil.
	inputVerdict func() ([]enforce.Ruling, error)
	schema       *enforce.Schema
	ledger       *enforce.Ledger
	calls        *enforce.CallLedger // made at the first tool call
	// resultRulings are the verdicts of the rules on each call's result,
	// by its row's number ([WithToolResultRules]).
	resultRulings map[int]*enforce.Rulings
	res           *Result
	turn          string
	// contract is the schema's text, shared by every request (nil
	// without a schema).
	contract *contract
	// skip marks messages that are not re-sent ([WithLatestRetryOnly]).
	skip map[int]bool
	// lastPair holds the indices of the latest failed answer and its
	// correction: with [WithOutputTool], every tool message answering it.
	lastPair []int
	// latency is how long the latest model call took (0: not timed);
	// cost is what the call behind the latest reply spent, for its row.
	latency time.Duration
	cost    enforce.Cost
	// noCall: with [WithOutputTool], the latest reply answered in text.
	noCall bool
	// cut says the latest reply was stopped at an early verdict
	// ([WithEarlyAbort]); nil otherwise.
	cut *enforce.Cut
	// callCut says the latest reply was stopped at an early verdict on
	// one of its tool calls' arguments; nil otherwise.
	callCut *callCut
	// readBack is the reply's Response.ReadBack, for its row.
	readBack []string
	// fromText: the latest reply's calls were read back from its text
	// (enforce.RepairToolText).
	fromText bool
	// watch is shown each streamed answer as it forms ([RunTypedStream]).
	watch watcher
	// auto is the output mode in force ([WithAutoOutputMode]); nil
	// without it.
	auto *autoMode
	// chain is the turn's place in the chain of models and what each
	// spent; lastInput is the input tokens of the latest call that
	// reported them in this conversation, made on the model
	// lastInputAt (-1: none), for [WithBudget]'s proof.
	chain       *chain
	lastInput   int
	lastInputAt int
	// degen watches a streamed answer for [WithDegenerateStop].
	degen *degenerate
	// thought is the latest reply's thinking, for its row.
	thought enforce.Thinking
	// format is the format step ([WithFormatStep]); nil without it.
	format *formatStep
	// free: the answer judged is the free step's, which never came
	// ([runState.freeNoAnswer]).
	free bool
}

func (a *Agent) run(ctx context.Context, input string, override *enforce.Schema, watch watcher) (*Result, error) {
	turn := turnID(ctx)
	if a.cfg.observer != nil {
		return a.observed(ctx, turn, input, func(ctx context.Context) (*Result, error) {
			return a.runTurn(ctx, turn, input, override, watch)
		})
	}
	return a.runTurn(ctx, turn, input, override, watch)
}

// runTurn is [Agent.run] under the turn ID turn.
func (a *Agent) runTurn(ctx context.Context, turn, input string, override *enforce.Schema, watch watcher) (*Result, error) {
	if err := errors.Join(a.cfg.errs...); err != nil {
		return &Result{TurnID: turn}, err
	}
	schema := a.cfg.schema
	if override != nil {
		schema = override
	}
	if a.cfg.retriesSet && schema == nil {
		return &Result{TurnID: turn}, fmt.Errorf("%w: WithOutputRetries needs WithOutputSchema or RunTyped", ErrInvalidOption)
	}
	if len(a.cfg.validators) > 0 && schema == nil {
		return &Result{TurnID: turn}, fmt.Errorf("%w: WithValidators needs WithOutputSchema or RunTyped", ErrInvalidOption)
	}
	if a.cfg.outputTool != "" && schema == nil {
		return &Result{TurnID: turn}, fmt.Errorf("%w: WithOutputTool needs WithOutputSchema or RunTyped", ErrInvalidOption)
	}
	if a.cfg.outputTool != "" && schema.Kind() == enforce.KindText {
		return &Result{TurnID: turn}, fmt.Errorf("%w: WithOutputTool: a text answer (enforce.Text) is plain text, never a tool call", ErrInvalidOption)
	}
	if a.cfg.autoTool != "" && schema == nil {
		return &Result{TurnID: turn}, fmt.Errorf("%w: WithAutoOutputMode needs WithOutputSchema or RunTyped", ErrInvalidOption)
	}
	if a.cfg.degenerate != nil && schema == nil {
		return &Result{TurnID: turn}, fmt.Errorf("%w: WithDegenerateStop needs WithOutputSchema or RunTyped", ErrInvalidOption)
	}
	if a.cfg.format != nil && (schema == nil || schema.Kind() == enforce.KindText) {
		return &Result{TurnID: turn}, fmt.Errorf("%w: WithFormatStep needs a JSON contract (WithOutputSchema or RunTyped), not a text", ErrInvalidOption)
	}
	// One ledger for the whole turn: rows keep their order and numbers
	// across turn retries, and share one retry budget.
	var ledger *enforce.Ledger
	if a.cfg.retriesSet {
		l, err := enforce.NewLedger(schema, a.cfg.retries, append(a.cfg.ledgerOptions(), kindOf(ctx)...)...)
		if err != nil {
			return &Result{TurnID: turn}, err
		}
		ledger = l
	}
	// events checks IDs; a turn it refuses would record nothing at all.
	if err := a.record(events.TurnStarted{TurnID: turn}); errors.Is(err, events.ErrInvalid) {
		return &Result{TurnID: turn}, fmt.Errorf("agent: turn not recorded: %w", err)
	}
	var usage Usage
	var res *Result
	var err error
	chain := a.newChain()
	ctx, judges := a.judgeRunFor(ctx, schema)
	for attempt := 1; ; attempt++ {
		res, err = a.runOnce(ctx, turn, input, schema, ledger, chain, watch)
		usage.add(res.Usage)
		res.Usage, res.TurnAttempts = usage, attempt
		p := a.cfg.turnRetry
		if err == nil || p == nil || attempt >= p.MaxAttempts || context.Cause(ctx) != nil {
			break
		}
		d, retry := a.schedule(p, attempt, err)
		if !retry {
			break
		}
		a.record(events.TurnRetry{
			TurnID: turn, Attempt: attempt, NextAttempt: attempt + 1, MaxAttempts: p.MaxAttempts,
			RetryDelay: d, Reason: retryReason(err), Kind: events.RetryTurn,
		})
		a.observeRetry(ctx, Retry{Kind: events.RetryTurn, Attempt: attempt, MaxAttempts: p.MaxAttempts, Delay: d, Reason: retryReason(err), Err: err})
		a.cfg.logger.Debug("turn retry scheduled", "turn", turn, "attempt", attempt, "delay", d, "error", err)
		if werr := wait(ctx, d); werr != nil {
			err = werr
			break
		}
	}
	res.FailedCost = enforce.FailedCost(append(slices.Clip(res.Attempts), res.Calls...))
	res.Models, res.Money = append(chain.spend.called(), judges.end()...), chain.spend.money
	a.recordTerminal(completed(ctx, turn, res, err))
	return res, err
}

// runOnce runs the turn once, from a fresh conversation.
func (a *Agent) runOnce(ctx context.Context, turn, input string, schema *enforce.Schema, ledger *enforce.Ledger, chain *chain, watch watcher) (*Result, error) {
	res := &Result{TurnID: turn, Input: input}
	st := &runState{a: a, schema: schema, res: res, turn: turn, ledger: ledger, contract: a.contractFor(schema), watch: watch, chain: chain, lastInputAt: -1}
	defer func() {
		if st.ledger != nil {
			res.Attempts = st.ledger.Attempts()
		}
		if st.calls != nil {
			res.Calls = st.callRows()
		}
		st.takeJudged(ctx)
	}()
	if err := context.Cause(ctx); err != nil {
		return res, err
	}

	in, steps, err := middleware.Run(ctx, middleware.PhaseInput, a.cfg.middleware, input)
	res.Trace = append(res.Trace, steps...)
	if err != nil {
		return res, err
	}
	st.holdFormat()
	if st.contract != nil && a.cfg.autoTool != "" {
		st.chooseMode()
	}
	system := a.cfg.system
	if st.contract != nil {
		system = st.contract.system
	}
	if system != "" {
		res.Messages = append(res.Messages, Message{Role: RoleSystem, Content: system})
	}
	res.Messages = append(res.Messages, Message{Role: RoleUser, Content: in})
	if a.cfg.inputRules != nil {
		var stop func()
		ctx, st.inputVerdict, stop = guardInput(ctx, a.cfg.inputRules, in)
		defer stop()
	}
	return res, st.loop(ctx)
}

// inputDone waits for the input rules' verdict, if still to come, and
// puts their rulings and their judges' spend on the record; it returns
// the verdict's error, nil when they passed or were already waited for.
func (st *runState) inputDone(ctx context.Context) error {
	wait := st.inputVerdict
	if wait == nil {
		return nil
	}
	st.inputVerdict = nil
	rulings, verdict := wait()
	st.takeJudged(ctx) // the input's judges, before any cap is checked
	st.inputRuled(rulings)
	return verdict
}

func (st *runState) loop(ctx context.Context) error {
	a, res := st.a, st.res
	for res.Iterations < a.cfg.maxIterations {
		if err := context.Cause(ctx); err != nil {
			// A rule that tripped on the input may have ended ctx before
			// the first call: its verdicts are on the record all the same.
			if verdict := st.inputDone(ctx); verdict != nil {
				return verdict
			}
			return err
		}
		res.Iterations++
		iteration := res.Iterations
		st.latency = 0
		resp, err := st.generate(ctx)
		st.takeJudged(ctx) // rules asked as the answer streamed
		st.readBack = resp.ReadBack
		res.Usage.add(resp.Usage)
		st.cost = enforce.Cost{
			InputTokens: max(resp.Usage.InputTokens, 0), OutputTokens: max(resp.Usage.OutputTokens, 0),
			CachedTokens: max(resp.Usage.CachedTokens, 0), ReasoningTokens: max(resp.Usage.ReasoningTokens, 0),
			LatencyMs: st.latency.Milliseconds(), Money: st.price(resp.Usage),
		}
		// Nothing the first reply asks is done before the input rules
		// pass ([WithInputRules]).
		if verdict := st.inputDone(ctx); verdict != nil {
			return verdict
		}
		if err != nil {
			if cause := context.Cause(ctx); cause != nil {
				return cause // cancelled while the call was in flight
			}
			return err
		}
		msg := resp.Message
		msg.Role = RoleAssistant
		apart := msg.Reasoning
		st.thought = st.thinking(&msg) // before anything reads the answer
		resp.Message.Content, resp.Message.Reasoning = msg.Content, msg.Reasoning
		st.fromText = false
		if len(msg.ToolCalls) == 0 && resp.Stop != StopLength && !resp.Stop.withheld() {
			msg.ToolCalls = st.textCalls(msg.Content) // the text stays as written
			st.fromText = msg.ToolCalls != nil
		}
		msg.ToolCalls = slices.Clone(msg.ToolCalls) // IDs are assigned below; the model's reply stays its own
		uniqueIDs(msg.ToolCalls, iteration)
		res.Messages = append(res.Messages, msg)
		if resp.Stop.withheld() {
			if st.escalateOnRefusal() {
				st.skipMessage(len(res.Messages) - 1)
				continue
			}
			return st.withheld(ctx, iteration, resp)
		}
		if answer, ok := st.outputAnswer(msg); ok {
			done, err := st.final(ctx, iteration, answer, resp.Stop == StopLength)
			if done || err != nil {
				return err
			}
			continue
		}
		if len(msg.ToolCalls) > 0 {
			if resp.Stop == StopLength {
				st.truncatedToolCalls(msg.ToolCalls)
				continue
			}
			if err := st.runTools(ctx, msg.ToolCalls); err != nil {
				return err
			}
			continue
		}
		if st.freeStep() {
			if strings.TrimSpace(msg.Content) != "" {
				st.beginFormat(msg.Content)
				continue
			}
			done, err := st.freeNoAnswer(ctx, iteration, msg.Content, resp.Stop == StopLength)
			if done || err != nil {
				return err
			}
			continue
		}
		content := st.answerInReasoning(msg.Content, apart, resp.Stop)
		done, err := st.final(ctx, iteration, content, resp.Stop == StopLength)
		if done || err != nil {
			return err
		}
	}
	return fmt.Errorf("%w (%d)", ErrMaxIterations, a.cfg.maxIterations)
}
