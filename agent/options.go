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
	schema            *enforce.Schema
	retries           int
	retriesSet        bool
	validators        []enforce.Validator // WithValidators
	inputRules        *enforce.Schema     // WithInputRules: a string held to them
	resultRules       *enforce.Schema     // WithToolResultRules: likewise
	repeats           int                 // WithRepeatLimit; 0: off
	callLimit         int                 // WithToolCallLimit; 0: none
	repairs           enforce.Repairs     // WithRepairs
	budget            enforce.Cost        // WithFailedCostBudget
	runBudget         Budget              // WithBudget
	prices            map[string]Price    // WithPrices
	escalation        *Escalation         // WithEscalation
	format            *formatOpt          // WithFormatStep
	degenerate        *Degenerate         // WithDegenerateStop
	middleware        []middleware.Middleware
	tools             []Tool
	toolIndex         map[string]int
	parallelTools     int // at most this many tool calls at once; 0: one after another
	maxIterations     int
	system            string
	latestOnly        bool // WithLatestRetryOnly
	earlyAbort        bool // WithEarlyAbort; on unless turned off
	earlyAbortSet     bool
	inlineThinkingOff bool // WithInlineThinking(false)
	headlessThinking  bool // WithHeadlessThinking
	outputSteps       bool // some middleware has an Output step
	logger            hclog.Logger
	modelRetry        *RetryPolicy
	turnRetry         *RetryPolicy
	events            Recorder
	now               func() time.Time // times model calls for the rows' latency (WithClock)
	outputTool        string           // WithOutputTool
	autoTool          string           // WithAutoOutputMode: its output tool's name
	observer          *Observer        // WithObserver
	errs              []error
}

func (c *config) invalid(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidOption}, args...)...))
}

// WithOutputSchema sets the output contract the final answer is judged
// against. Without [WithOutputRetries] a failing answer ends the run with an
// *enforce.OutputError and no ledger rows. Beside [RunTyped], the answer
// must keep both the schema and T: RunTyped says what happens where they
// disagree.
func WithOutputSchema(s *enforce.Schema) Option {
	return optionFunc(func(c *config) {
		if s == nil {
			c.invalid("WithOutputSchema(nil)")
		}
		c.schema = s
	})
}

// WithOutputRetries opts into enforcement: every final answer gets a
// ledger row, and a failing one is answered with a corrective turn while
// retries are left. n is 0 to enforce.MaxRetries; 0 records rows but never
// re-asks. It needs [WithOutputSchema] (or [RunTyped]). An answer truncated
// at the output limit ([StopLength]) is corrected with a request for a
// shorter one (see [enforce.Ledger.Judge]); a refusal is not judged: its
// row says Withheld and Run returns a [*RefusalError].
func WithOutputRetries(n int) Option {
	return optionFunc(func(c *config) {
		if n < 0 || n > enforce.MaxRetries {
			c.invalid("WithOutputRetries(%d): want 0..%d", n, enforce.MaxRetries)
		}
		c.retries, c.retriesSet = n, true
	})
}

// WithValidators joins checks of the answer's content to the output
// contract ([enforce.NewValidator]; see [enforce.Validator]). It needs
// [WithOutputSchema] or [RunTyped]; a validator without a name or check,
// or a name given twice, makes Run return an error matching
// [ErrInvalidOption] before the model is called.
func WithValidators(vs ...enforce.Validator) Option {
	return optionFunc(func(c *config) {
		c.validators = append(c.validators, vs...)
	})
}

// WithRepeatLimit stops a run of [WithOutputRetries] whose model repeats
// itself ([enforce.WithRepeatLimit]): the n-th answer in a row failing
// with the same issues is exhausted, retries unspent, and the error
// matches enforce.ErrRepeated. So are tool calls: the n-th call of a
// tool in a row failing with the same issues ends the run with a
// [*ToolCallError] that matches it. n is 0 (off, the default) or
// 2..enforce.MaxRetries+1.
func WithRepeatLimit(n int) Option {
	return optionFunc(func(c *config) {
		if n != 0 && (n < 2 || n > enforce.MaxRetries+1) {
			c.invalid("WithRepeatLimit(%d): want 0 (off) or 2..%d", n, enforce.MaxRetries+1)
		}
		c.repeats = n
	})
}

// WithRepairs mends the form of a final answer that fails as written
// before it is judged ([enforce.Repairs]). A mended answer that passes
// costs no model call, its row names the repairs, and it is what
// [Result.Output] and [RunTyped] give; the conversation keeps what the
// model wrote. Tool calls' arguments are mended alike: the tool gets
// them mended and the call's row names the repairs ([Result.Calls]).
// enforce.RepairToolText reads back calls of the agent's tools left in a
// reply's text, where that is the one reading ([enforce.ReadTextCalls]).
// By default none.
func WithRepairs(rs enforce.Repairs) Option {
	return optionFunc(func(c *config) { c.repairs = rs })
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

// WithParallelTools runs the tool calls of one reply concurrently, at most
// n at once (n is 0..1024; 0 means 16). Results keep the order the model
// asked for them. By default tools run one after another.
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
// failed answer and its correction, so a request stays flat however many
// retries run (by default every pair is re-sent). [Result.Messages] keeps
// every pair; tool calls and results are always re-sent.
func WithLatestRetryOnly() Option {
	return optionFunc(func(c *config) { c.latestOnly = true })
}

// WithEarlyAbort turns early abort on (the default) or off: with
// [WithOutputRetries], a streamed final answer that can no longer pass is
// cut at the byte that dooms it (see Streaming in the package doc). It
// cuts only when a retry can follow, no middleware has an Output step,
// and, in prompted output, no tools are offered; with [WithOutputTool],
// the output tool's arguments are cut whatever tools are offered, the
// corrective turn is that call's result, and the reply's other calls are
// answered unrun. A reply that has said why it ended (a chunk with Stop)
// has come whole and is judged whole, not cut. A reply marked
// [StopRefusal] or [StopContentFilter] is judged no further. Whatever this says, no streamed answer is read past
// the byte after the contract's size bound. A tool call whose arguments
// its tool's parameters doom is cut too, with or without retries, while
// it is the only call the reply has begun; its row in [Result.Calls]
// says how far it got.
func WithEarlyAbort(on bool) Option {
	// Why not with tools in prompted output: a reply may write text, even
	// text that looks like JSON ("[Looking that up]"), and then call a
	// tool, so no verdict on its text is sure to be about a final answer;
	// such replies are judged at their end. A model that writes its tool
	// calls as JSON text, for its adapter to parse at the end, looks like
	// an answer while it streams: turn early abort off for it. A cut
	// output-tool call keeps its arguments up to the dooming byte (an
	// adapter whose API takes only a JSON object sends back what it sends
	// for any cut call). A refusal a provider marks only at its end
	// (Anthropic's) is text until then, so it is cut like other prose.
	// The size bound holds so that a model writing without end costs
	// bounded memory: the byte past it fails the answer whatever follows.
	// A doomed call is cut only while it is the reply's one call: a call
	// begun before or beside it may run, and would be lost. Its text is
	// kept as far as it came, and a reply that calls a tool has no answer
	// in it. Arguments that begin with '"' are judged whole under the
	// coerce repair, which may read the string as an object.
	return optionFunc(func(c *config) { c.earlyAbort, c.earlyAbortSet = on, true })
}

// WithLogger sets the logger (default: none). Each ledger row is logged at
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
	c.checkBudget()
	if e := c.escalation; e != nil && e.AfterFailures > 0 && !c.retriesSet && len(c.tools) == 0 {
		c.invalid("WithEscalation: AfterFailures needs WithOutputRetries or WithTools")
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
	c.judgeTools()
	if _, dup := c.toolIndex[c.outputTool]; dup && c.outputTool != "" {
		c.invalid("WithOutputTool(%q): WithTools has a tool of that name", c.outputTool)
	}
	if _, dup := c.toolIndex[c.autoTool]; dup && c.autoTool != "" {
		c.invalid("WithAutoOutputMode(%q): WithTools has a tool of that name", c.autoTool)
	}
	if c.autoTool != "" && c.outputTool != "" {
		c.invalid("WithAutoOutputMode beside WithOutputTool: the auto mode chooses tool output itself")
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
// turn/modelRetryScheduled and turn/retryScheduled before each backoff;
// for a retried row, turn/retryScheduled (no delay; left out with
// [WithTurnRetry], whose retries own that numbering) then
// output/schemaRetry; output/schemaExhausted for an exhausted row;
// turn/completed last. A failure to record is logged and the run goes on,
// except that a turn/started r refuses as invalid ([events.ErrInvalid])
// stops the run before the model is called, and a refused turn/completed
// is recorded again with only its terminal and error, so a turn-wait
// resolves.
func WithEvents(r Recorder) Option {
	return optionFunc(func(c *config) {
		if r == nil {
			c.invalid("WithEvents(nil)")
		}
		c.events = r
	})
}

// WithClock sets the clock the agent times each model call with (default
// time.Now), for the latency in each ledger row ([enforce.Cost]). Tests
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
// parameters are the output schema (tool-call output) instead of text.
// Every request carries the tool and [Request.RequireToolCall]. It needs
// [WithOutputSchema] or [RunTyped], with an object at the schema's root;
// name is 1 to 64 of a-z, A-Z, 0-9, _ and -, and no tool of [WithTools].
// The answer is the arguments of the reply's first call of the tool; a
// failing one's corrective turn is that call's result, and the reply's
// other calls are answered unrun. A reply in text instead is a json-parse
// failure (keyword "tool") corrected with a user message.
func WithOutputTool(name string) Option {
	return optionFunc(func(c *config) {
		if !validToolName(name) {
			c.invalid("WithOutputTool(%q): want 1 to %d of a-z, A-Z, 0-9, _ and -", name, maxToolName)
		}
		c.outputTool = name
	})
}
