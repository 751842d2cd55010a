// Package agent runs a ReAct loop over a [Model] and enforces its output
// contract.
//
// The model either asks for tool calls, which the loop runs and answers
// with tool messages, or gives a final answer. With an output schema the
// final answer passes act-output middleware and is judged by package
// enforce; with [WithOutputRetries] a failing answer is answered with a
// corrective turn and the loop runs again, and [Result.Attempts] records
// one row per final answer. [WithValidators] adds checks of the answer's
// content to the contract; [WithRepeatLimit] (opt-in) gives up on a model
// that keeps failing the same way.
//
//	s, _ := enforce.SchemaFor[Weather]()
//	a := agent.New(model, agent.WithOutputSchema(s), agent.WithOutputRetries(2))
//	w, res, err := agent.RunTyped[Weather](ctx, a, "Weather in Paris?")
//	// res.Attempts: [{attempt:1 outcome:retried …} {attempt:2 outcome:passed}]
//
// With [WithOutputTool] the final answer is a call of a tool whose
// parameters are the schema instead of a reply in text; the call's
// arguments are judged, and a correction is that call's result.
// [WithAutoOutputMode] chooses per model between that, the provider's
// native mode and the prompt alone, from what the model says it takes
// ([ModeReporter]), and moves on when the provider refuses a mode.
//
// An answer that is not one JSON value has an entry point of its own
// beside [RunTyped]: [RunChoice] and [RunMultiLabel] for labels of a set
// (enforce.Choice, enforce.MultiLabel), [RunText] for plain text held
// to rules (enforce.Text), each judged with the same ledger.
//
// # Cost
//
// Each row carries what the model call behind its answer spent
// ([enforce.Cost]: tokens, and latency on the clock of [WithClock]);
// [Result.FailedCost] sums the rows that did not pass, [Result.Usage]
// every call. A [Result] saved as JSON reads back without loss, so a
// failed run can be replayed as a test (agenttest.Replay).
//
// Spending across models: [WithEscalation] moves a run along a chain of
// models, each row naming the model that wrote it and [Result.Models]
// what each spent; [WithBudget] caps a whole run's tokens, requests and
// money (priced by [WithPrices]); [WithDegenerateStop] cuts a stream of
// endless blank space or repetition.
//
// # Errors
//
// [Agent.Run] and [RunTyped] return a non-nil [*Result] whenever the model
// was called, also alongside an error. Why a run stopped is a sentinel
// ([ErrMaxIterations], [ErrEmptyAnswer], [ErrModel], [ErrInvalidOption]) or
// a typed error: [*enforce.OutputError] for a broken contract (its
// sentinels say why retrying stopped: enforce.ErrExhausted, ErrBrokenBy,
// ErrRepeated, ErrBeyondRepair), [*enforce.ValidatorError] for a
// validator that could not judge the answer, [*BudgetError] for a
// request a budget refused (it and a budget's OutputError match
// [ErrBudget]), [*middleware.DeniedError] for a denial, [*ProviderError] (wrapped in
// [ErrModel]) for a failed provider call, [*RefusalError] for a refusal. A
// cancelled context returns [context.Cause].
//
// # Why the model stopped
//
// Every adapter says why a reply ended ([Response.Stop], one
// [StopReason] for all providers, the provider's own value kept in
// [Response.StopRaw]), and the loop acts on it:
//
//   - [StopLength], a final answer: judged as usual, but its row and
//     *enforce.OutputError say Truncated, and the ledger treats it as
//     enforce.Answer.Truncated says.
//   - [StopLength], tool calls: none is run, since their arguments may be
//     incomplete; each is answered with a tool error saying so.
//   - [StopRefusal], [StopContentFilter]: nothing is judged or run; the run
//     ends with a [*RefusalError] whose Text is the provider's, as data.
//     The session stream says only the kind (turn/completed, modelError).
//
// # Thinking
//
// A reasoning model's thinking is never the answer. Adapters put what
// their provider gives apart in [Message.Reasoning] (and, where the
// provider must be sent it back as it came, [Message.ReasoningRaw]);
// the loop moves thinking written in tags at the start of any model's
// text there too ([WithInlineThinking]; [WithHeadlessThinking] for a
// block whose opening tag the prompt held). The answer's row says how much
// thinking there was (enforce.Attempt.Thinking). A reply with no answer
// after its thinking — cut at the output limit while thinking, or all of
// it in the reasoning — fails at enforce.StageNoAnswer, not json-parse,
// and its corrective turn asks for the answer; an answer a server left
// at the end of the reasoning is taken only under enforce.RepairProse,
// the row saying so (enforce.Thinking.Answer). The conversation keeps
// the model's message, thinking beside the answer; each adapter sends
// back what its provider documents (the thinking of a turn that called
// tools, not an answer's). [WithFormatStep] has the model answer freely
// and a second call turn the answer into the contract's JSON.
//
// # Streaming
//
// A model that can stream its reply ([StreamingModel]) is streamed: the
// loop reads its chunks ([Chunk]) and puts them together into the
// [Response] Generate would give, with the same retries, error kinds and
// panics-as-errors. A stream that fails part-way is a failed call, never
// a short answer.
//
// With [WithOutputRetries] a streamed final answer is judged while it
// arrives ([enforce.Incremental]) and cut at the first byte that dooms it
// ([WithEarlyAbort], on by default): the provider stops writing, the row
// says how far the answer got (enforce.Attempt.Cut), the conversation
// keeps what the model wrote up to there, and the corrective turn goes
// out at once. A reply that may still become a tool call is not cut;
// with [WithOutputTool] the answer is the output tool's call, whose
// arguments are judged, and cut, from the moment that call begins.
// A tool call's arguments are judged the same way, against its tool's
// parameters, and cut while that call is the only one the reply has
// begun (see [WithEarlyAbort]). With or without retries, no streamed
// reply is read past a bound (see Bounds).
//
// [RunTypedStream] is [RunTyped] whose answer can be watched as it forms:
// a range loop over its Partials sees the value decoded so far and the
// JSON Pointers of the members already whole and valid, and is told when
// a retry starts the value over. [RunElements] yields the elements of
// the answer's array, each as soon as it closes and passes, with a
// Restart when those yielded before are void.
//
// [RunUnion] asks for one of several Go types, the model's choice
// ([Member]), and returns the one chosen for a type switch; each row
// names the member (see docs/output-kinds.md).
//
// # Retries
//
// [WithModelRetry] retries one failed model call, [WithTurnRetry] the
// whole turn, both under a [RetryPolicy]; [DefaultBackoff] is exponential
// with jitter and honours a provider's Retry-After.
//
// # Events
//
// [WithEvents] records each run on a session stream (package events) as it
// happens, under the turn ID that [ContextWithTurnID] sets. Every recorded
// turn reaches its terminal, turn/completed: when the stream refuses the
// full event it is recorded again without usage or timings. A turn ID the
// stream refuses stops the run before the model is called. Token counts
// ([Usage]) saturate at math.MaxInt, and a negative count a model reports
// counts as unknown.
//
// [WithObserver] tells an [Observer] of each run, model call, tool call,
// ledger row and retry as it happens, with contexts it may extend: the
// seam for tracing (module github.com/enforcer-go/enforcer/otel makes
// OpenTelemetry spans of it). Without one, observing costs nothing.
//
// # Bounds
//
//   - Iterations: 10 per run, plus one per output retry
//     ([WithMaxIterations]).
//   - Output retries: 0..enforce.MaxRetries ([WithOutputRetries]).
//   - Model-call and turn retries: 1..100 tries, 3 by default
//     ([RetryPolicy.MaxAttempts]);
//     [DefaultBackoff] waits 500ms doubling to 30s, and a provider's
//     Retry-After ([ProviderError.RetryAfter]) up to the same 30s.
//   - Parallel tools: 16 calls of one reply at once by default, 1..1024
//     ([WithParallelTools]).
//   - A streamed reply: an answer nothing can follow or change is cut at
//     the byte past the contract's size bound (a json-parse failure,
//     whatever follows); a whole reply past the larger of that bound and
//     [enforce.MaxAnswerBytes], or past 65,536 chunks that add no bytes,
//     fails the model call with [ErrModel].
//
// # Cancellation
//
// When the context ends, Run returns its cause at once: during a backoff
// wait, between iterations, and while the model, a tool or a middleware
// step runs, even one that never looks at its context. Such code is not
// waited for: it finishes on its own goroutine, which may outlive the
// run, and its result is dropped — a model's reply is not recorded,
// observed as a success, or added to the conversation. For a model call
// that goroutine runs only the model's own code (Generate, or
// GenerateStream and its iterator, whose yield returns once the run has
// read the chunk); the run reads each chunk on the caller's goroutine.
// A context that can never end (its Done is nil) runs the model on the
// caller's goroutine, with nothing to return early for.
//
// A model should still honour its context: one that does not holds its
// connection, and its goroutine, until it ends on its own.
package agent
