package agent

import (
	"fmt"
	"time"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/middleware"
	"github.com/hashicorp/go-hclog"
)

// Option configures an Agent. Options are validated by New; an invalid one
// makes every Run return an error matching [ErrInvalidOption].
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// defaultMaxIterations bounds a run that sets no [WithMaxIterations]; such a
// run also gets one more iteration per output retry, so that every retry
// it opted into can be answered.
const defaultMaxIterations = 10

type config struct {
	schema        *enforce.Schema
	retries       int
	retriesSet    bool
	validators    []enforce.Validator // WithValidators
	repeats       int                 // WithRepeatLimit; 0: off
	repairs       enforce.Repairs     // WithRepairs
	budget        enforce.Cost        // WithFailedCostBudget
	middleware    []middleware.Middleware
	tools         []Tool
	toolIndex     map[string]int
	parallelTools int // at most this many tool calls at once; 0: one after another
	maxIterations int
	system        string
	latestOnly    bool // WithLatestRetryOnly
	earlyAbort    bool // WithEarlyAbort; on unless turned off
	earlyAbortSet bool
	outputSteps   bool // some middleware has an Output step
	logger        hclog.Logger
	modelRetry    *RetryPolicy
	turnRetry     *RetryPolicy
	events        Recorder
	now           func() time.Time // times model calls for the rows' latency (WithClock)
	outputTool    string           // WithOutputTool
	observer      *Observer        // WithObserver
	errs          []error
}

func (c *config) invalid(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidOption}, args...)...))
}

// WithOutputSchema sets the output contract the final answer is judged
// against. Without [WithOutputRetries] a failing answer ends the run with an
// *enforce.OutputError and no attempt rows.
func WithOutputSchema(s *enforce.Schema) Option {
	return optionFunc(func(c *config) {
		if s == nil {
			c.invalid("WithOutputSchema(nil)")
		}
		c.schema = s
	})
}

// WithOutputRetries opts into enforcement: every final answer gets an
// attempt row, and a failing one is answered with a corrective turn while
// retries are left. n is 0 to enforce.MaxRetries; 0 records rows but never
// re-asks. It needs [WithOutputSchema] (or [RunTyped]).
//
// A failing answer the model's output limit cut off ([StopLength]) is
// judged like any other, and its row says Truncated; its corrective turn
// says the answer was cut off at the output length limit and asks for a
// shorter one. If the answer before it was cut off too, the row is
// exhausted at once, retries unspent: asking again under the same limit
// would only be cut again. A refusal or a content filter stop is not
// judged: its row is exhausted, says Withheld, and the run returns a
// [*RefusalError].
func WithOutputRetries(n int) Option {
	return optionFunc(func(c *config) {
		if n < 0 || n > enforce.MaxRetries {
			c.invalid("WithOutputRetries(%d): want 0..%d", n, enforce.MaxRetries)
		}
		c.retries, c.retriesSet = n, true
	})
}

// WithValidators joins checks of the answer's content to the output
// contract ([enforce.Validate] makes them; [enforce.Schema.WithValidators]
// says how they judge): they run, in order, on each final answer that
// keeps the schema, and their issues fail it at schema-validate exactly
// as schema issues do — the same row, corrective turn and
// *enforce.OutputError, with or without [WithOutputRetries]. A validator
// that says [enforce.ErrBeyondRepair] ends the run at once, retries
// unspent; one that fails or panics ends it with an
// *enforce.ValidatorError (and, with retries, an exhausted row). It needs
// [WithOutputSchema] or [RunTyped]; a validator without a name or check,
// or a name given twice, makes Run return an error matching
// [ErrInvalidOption] before the model is called.
func WithValidators(vs ...enforce.Validator) Option {
	return optionFunc(func(c *config) {
		c.validators = append(c.validators, vs...)
	})
}

// WithRepeatLimit sets the convergence policy of [WithOutputRetries]: when
// n final answers in a row fail with the same issues (the same stage and
// the same pointers and keywords; at json-parse, the same kind of failure,
// as [enforce.WithRepeatLimit] says), the n-th is exhausted at once,
// retries unspent, and the run returns an *enforce.OutputError matching
// enforce.ErrRepeated. n is 0 (off, the default: every retry is spent) or
// 2..enforce.MaxRetries+1. Turn it on for a model that repeats itself,
// such as one at temperature 0.
func WithRepeatLimit(n int) Option {
	return optionFunc(func(c *config) {
		if n != 0 && (n < 2 || n > enforce.MaxRetries+1) {
			c.invalid("WithRepeatLimit(%d): want 0 (off) or 2..%d", n, enforce.MaxRetries+1)
		}
		c.repeats = n
	})
}

// WithRepairs mends the form of a final answer that fails as written
// before it is judged ([enforce.Schema.WithRepairs]): a markdown fence,
// prose around the value, relaxed syntax, values spelled as strings. A
// mended answer that passes is a passed row naming its repairs
// ([enforce.Attempt.Repaired]), costs no model call, and is what
// [Result.Output] and [RunTyped] give; the conversation keeps what the
// model wrote. One that still fails is corrected as mended. By default
// none: the contract is strict. A bit outside [enforce.AllRepairs] makes
// Run return an error matching [ErrInvalidOption].
func WithRepairs(rs enforce.Repairs) Option {
	return optionFunc(func(c *config) {
		if rs&^enforce.AllRepairs != 0 {
			c.invalid("WithRepairs(%#x): unknown repairs", uint8(rs))
		}
		c.repairs = rs
	})
}

// WithFailedCostBudget stops a run of [WithOutputRetries] once its failed
// answers cost more than b ([enforce.WithFailedCostBudget]): the answer
// that passes it is exhausted with reason budget, retries unspent, and
// the run returns an *enforce.OutputError matching enforce.ErrBudget.
// Each member of b that is not zero is a limit: input tokens, output
// tokens, latency. A negative member makes Run return an error matching
// [ErrInvalidOption].
func WithFailedCostBudget(b enforce.Cost) Option {
	return optionFunc(func(c *config) {
		if b.InputTokens < 0 || b.OutputTokens < 0 || b.LatencyMs < 0 {
			c.invalid("WithFailedCostBudget(%+v): a limit is negative", b)
		}
		c.budget = b
	})
}

// WithMiddleware adds act middleware, run in the order given: Input steps
// on the user's input, Output steps on each final answer before it is
// judged.
func WithMiddleware(ms ...middleware.Middleware) Option {
	return optionFunc(func(c *config) {
		c.middleware = append(c.middleware, ms...)
	})
}

// WithTools adds tools the model may call.
func WithTools(ts ...Tool) Option {
	return optionFunc(func(c *config) {
		c.tools = append(c.tools, ts...)
	})
}

// WithParallelTools runs the tool calls of one model reply concurrently,
// at most n at once (0 means 16; n is 0..1024), so that a reply asking for
// thousands of calls cannot start thousands of goroutines. Results are
// appended in the order the model asked for them either way. By default
// tools run one after another.
func WithParallelTools(n int) Option {
	return optionFunc(func(c *config) {
		if n < 0 || n > maxParallelTools {
			c.invalid("WithParallelTools(%d): want 0..%d (0 means %d)", n, maxParallelTools, defaultParallelTools)
		}
		if n == 0 {
			n = defaultParallelTools
		}
		c.parallelTools = n
	})
}

// Bounds of [WithParallelTools].
const (
	defaultParallelTools = 16
	maxParallelTools     = 1024
)

// WithMaxIterations bounds the ReAct iterations (model replies) of one
// run (default 10, plus one per output retry). A corrective turn counts
// as an iteration; a call retried under [WithModelRetry] does not.
func WithMaxIterations(n int) Option {
	return optionFunc(func(c *config) {
		if n < 1 {
			c.invalid("WithMaxIterations(%d): want at least 1", n)
		}
		c.maxIterations = n
	})
}

// WithSystemPrompt sets the system message. With an output schema, the
// contract is appended to it in the library's own words.
func WithSystemPrompt(s string) Option {
	return optionFunc(func(c *config) { c.system = s })
}

// WithLatestRetryOnly makes each output retry re-send only the latest
// failed answer and its correction, so what is sent stays flat however
// many retries run. By default every failed answer and its correction is
// re-sent: the history grows by two messages per retry. Either way every
// pair stays in [Result.Messages], and tool calls and their results are
// always re-sent: the model needs them to answer.
func WithLatestRetryOnly() Option {
	return optionFunc(func(c *config) { c.latestOnly = true })
}

// WithEarlyAbort turns early abort on (the default) or off. With it, when
// the model streams ([StreamingModel]) and the run has [WithOutputRetries],
// a final answer is judged while it arrives ([enforce.Stream]), and one
// that can no longer pass is stopped at the byte that dooms it: the call's
// context is cancelled so the provider stops writing, the row is the
// early verdict and says how far the answer got (enforce.Attempt.Cut), the
// conversation keeps the answer up to that byte as the model's message,
// and the corrective turn, which says the answer was stopped there, goes
// out at once.
//
// Nothing is cut unless a retry can follow: not without retries, not with
// none left, not on the last iteration. Nor is anything cut when some
// middleware has an Output step, which might turn the answer into one
// that passes (stripping a fence, say). In prompted output, nor when
// tools are offered to the model ([WithTools]): a reply may write text,
// even text that looks like JSON ("[Looking that up]"), and then call a
// tool, so no early verdict on its text is sure to be about a final
// answer; such replies are judged whole, at their end, as without
// streaming. A model that writes its tool calls as JSON text, for its
// adapter to parse at the end, looks like an answer while it streams:
// turn early abort off for it.
//
// With [WithOutputTool] the answer is the arguments of the reply's first
// call of the output tool, and from the moment that call begins they can
// be nothing else, whatever tools are offered: they are judged as they
// arrive and cut the same way. The conversation keeps the call with its
// arguments up to the dooming byte (an adapter whose API takes only a
// JSON object as a call's arguments sends back what it sends for any cut
// call), the corrective turn is that call's result, and the reply's other
// calls are not run, each answered as such. The reply's text, and a reply
// in text instead of the call, are judged at their end.
//
// A reply whose chunk says [StopRefusal] or [StopContentFilter] is judged
// no further from that chunk on, so a refusal the provider marks from its
// start (OpenAI's) ends the run with a [*RefusalError] as without early
// abort. A refusal that a provider marks only at the end of its reply
// (Anthropic's) is text until then: with early abort it is cut and
// corrected like any other prose.
//
// Whatever this option says, a streamed answer is read no further than
// the byte past the contract's answer size bound
// ([enforce.Schema.MaxAnswerBytes]): that byte fails the answer at
// json-parse whatever follows, as [enforce.Schema.Check] fails the whole
// text. The call is cancelled there, the conversation keeps the answer up
// to that byte, and its row, if any, says how far it got (Cut), so a
// model that writes without end costs bounded memory; the other parts of
// a reply are bounded too (see [StreamingModel]).
func WithEarlyAbort(on bool) Option {
	return optionFunc(func(c *config) { c.earlyAbort, c.earlyAbortSet = on, true })
}

// WithLogger sets the logger (default: none). Each attempt row is logged at
// debug level with the row's fields.
func WithLogger(l hclog.Logger) Option {
	return optionFunc(func(c *config) {
		if l == nil {
			l = hclog.NewNullLogger()
		}
		c.logger = l
	})
}

func (c *config) finish() {
	if !c.earlyAbortSet {
		c.earlyAbort = true
	}
	for _, m := range c.middleware {
		c.outputSteps = c.outputSteps || m.Output != nil
	}
	if c.maxIterations == 0 {
		c.maxIterations = defaultMaxIterations + max(c.retries, 0)
	}
	if c.logger == nil {
		c.logger = hclog.NewNullLogger()
	}
	if c.now == nil {
		c.now = time.Now
	}
	if err := middleware.Validate(c.middleware...); err != nil {
		c.invalid("WithMiddleware: %v", err)
	}
	c.toolIndex = make(map[string]int, len(c.tools))
	for i, t := range c.tools {
		switch {
		case t.err != nil:
			c.invalid("WithTools: %v", t.err)
		case t.Name == "":
			c.invalid("WithTools: tool %d has no name", i)
		case t.Run == nil:
			c.invalid("WithTools: tool %q has no Run", t.Name)
		}
		if _, dup := c.toolIndex[t.Name]; dup {
			c.invalid("WithTools: tool %q given twice", t.Name)
		}
		c.toolIndex[t.Name] = i
	}
	if _, dup := c.toolIndex[c.outputTool]; dup && c.outputTool != "" {
		c.invalid("WithOutputTool(%q): WithTools has a tool of that name", c.outputTool)
	}
}

// WithModelRetry retries failed model calls under p. Each scheduled retry
// is recorded (turn/modelRetryScheduled, with [WithEvents]) before the wait
// begins, so clients see it while the turn is still running. A context
// cancelled during the wait ends the run at once with its cause.
func WithModelRetry(p RetryPolicy) Option {
	return optionFunc(func(c *config) {
		if err := p.validate("WithModelRetry"); err != nil {
			c.errs = append(c.errs, err)
		}
		p := p.withDefaults()
		c.modelRetry = &p
	})
}

// WithTurnRetry re-runs a whole turn, from a fresh conversation, when it
// fails with an error p deems retryable (by default a retryable provider
// error that outlasted any model retries). Each scheduled turn retry is
// recorded (turn/retryScheduled) before the wait begins.
func WithTurnRetry(p RetryPolicy) Option {
	return optionFunc(func(c *config) {
		if err := p.validate("WithTurnRetry"); err != nil {
			c.errs = append(c.errs, err)
		}
		p := p.withDefaults()
		c.turnRetry = &p
	})
}

// WithEvents records each run's facts on r while it runs: turn/started;
// turn/modelRetryScheduled and turn/retryScheduled before each backoff
// wait; for each retried attempt row, turn/retryScheduled (attempt N of
// retries+1, no delay, so a client can show "attempt 1/3 · retrying now ·
// answer broke the output contract at json-parse", or "answer cut early
// at json-parse" for an answer [WithEarlyAbort] stopped; left out with
// [WithTurnRetry], whose turn retries own that numbering) and then
// output/schemaRetry (with the row's correctiveMessageHash and tokens);
// output/schemaExhausted for an exhausted row (with its reason and
// tokens); turn/completed last.
//
// A failure to record is logged and does not stop the run, with two
// exceptions that keep the stream whole. When r refuses turn/started as
// invalid ([events.ErrInvalid]: a turn ID from [ContextWithTurnID] that
// cannot travel, holding a newline or over 256 bytes, say), Run returns
// that error before it calls the model, and records nothing. When r
// refuses turn/completed, Run records it once more with only the terminal
// and its error (no usage, reason or timings), so that a turn-wait still
// resolves; only a recorder that takes nothing (a closed stream) leaves
// the turn open.
func WithEvents(r Recorder) Option {
	return optionFunc(func(c *config) {
		if r == nil {
			c.invalid("WithEvents(nil)")
		}
		c.events = r
	})
}

// WithClock sets the clock the agent times each model call with (default
// time.Now), for the latency in each attempt row ([enforce.Cost]). Tests
// that compare rows whole give it a fixed clock, so every run gives the
// same rows.
func WithClock(now func() time.Time) Option {
	return optionFunc(func(c *config) {
		if now == nil {
			c.invalid("WithClock(nil)")
		}
		c.now = now
	})
}

// WithOutputTool makes the final answer a call of a tool named name whose
// parameters are the output schema (tool-call output, pydantic-ai's
// default), instead of a reply in text (prompted output). Every request
// carries the tool and [Request.RequireToolCall]; the system message says
// to answer by calling it. It needs [WithOutputSchema] (or [RunTyped]),
// whose schema must have an object at its root, as providers require of
// tool parameters. name is 1 to 64 of a-z, A-Z, 0-9, _ and -, and is not
// the name of a tool from [WithTools].
//
// The answer judged, returned and shown to act-output middleware is the
// arguments of the reply's first call of the tool; rows, brokenBy and
// events are as in prompted output. A failing answer's corrective turn is
// the result of that call, a tool message, and asks for the call again;
// other calls of the same reply are not run, and each gets a tool message
// saying so. Streamed, the arguments are judged as they arrive, and a call
// that can no longer pass is cut off early (see [WithEarlyAbort]);
// [RunTypedStream] shows them as they form. A reply in text instead of a
// call is a failing answer at json-parse whose one issue (keyword "tool")
// says the reply is text, not a call of the tool; its corrective turn is
// a user message.
func WithOutputTool(name string) Option {
	return optionFunc(func(c *config) {
		if !validToolName(name) {
			c.invalid("WithOutputTool(%q): want 1 to %d of a-z, A-Z, 0-9, _ and -", name, maxToolName)
		}
		c.outputTool = name
	})
}
