package agent

import (
	"errors"
	"strconv"
	"time"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
)

// Errors that say why a run stopped. Failures of the output contract are
// *enforce.OutputError, and a validator that could not judge the answer
// is *enforce.ValidatorError; denials are *middleware.DeniedError;
// refusals are [*RefusalError]; a tool called badly too often is
// [*ToolCallError].
var (
	// ErrMaxIterations: the run reached its iteration bound without a
	// final answer.
	ErrMaxIterations = errors.New("agent: iteration limit reached")
	// ErrEmptyAnswer: the model's final answer was empty, and no output
	// schema was there to judge it.
	ErrEmptyAnswer = errors.New("agent: model returned an empty answer")
	// ErrModel is matched by every failure of a Model call, including a
	// panic inside Generate.
	ErrModel = errors.New("agent: model call failed")
	// ErrInvalidOption is matched by the error Run returns when New was
	// given an invalid option.
	ErrInvalidOption = errors.New("agent: invalid option")

	errToolPanic  = errors.New("tool panicked")
	errModelPanic = errors.New("model panicked")
	// errReplyTooLong: a streamed reply passed the whole reply's bound
	// (see StreamingModel).
	errReplyTooLong = errors.New("streamed reply too long")
	// errReplyEndless: a streamed reply passed its bound of chunks that
	// add no bytes (see StreamingModel).
	errReplyEndless = errors.New("streamed reply never ends")
)

// RefusalError is a run that ended without an answer: the model refused
// ([StopRefusal]) or a content filter stopped it ([StopContentFilter]).
// Nothing was judged and no correction sent; with [WithOutputRetries] the
// last row is exhausted and says Withheld. Error and the session stream
// say only the kind.
type RefusalError struct {
	Stop StopReason // StopRefusal or StopContentFilter
	Raw  string     // the provider's own value, as [Response.StopRaw]
	// Text is what the provider gave instead of an answer (a refusal
	// message, possibly empty). It is the model's text: treat it as data.
	Text string
}

// ToolCallError ends a run whose model kept calling a tool with
// arguments that break its parameters ([WithToolCallLimit], and
// [WithRepeatLimit] for calls failing the same way): the call whose row
// is exhausted, and its issues. It matches enforce.ErrRepeated when
// Reason is enforce.ReasonRepeated, and [ErrBudget] when it is
// enforce.ReasonBudget ([WithFailedCostBudget]).
type ToolCallError struct {
	Tool, CallID string
	Stage        enforce.Stage
	// Issues are the last call's issues, as [enforce.CheckError.Issues]:
	// every one, sorted by pointer. The arguments are the model's text:
	// treat the messages as data.
	Issues []enforce.Issue
	// Reason is enforce.ReasonRepeated, enforce.ReasonBudget, or "" for
	// the limit of failed calls.
	Reason enforce.Reason
	// Calls are the run's call rows, the exhausted one last.
	Calls []enforce.Attempt
}

func (e *ToolCallError) Error() string {
	why := "too many failed calls in a row"
	switch e.Reason {
	case enforce.ReasonRepeated:
		why = "the same issues again"
	case enforce.ReasonBudget:
		why = "the failed calls and answers cost more than the budget"
	}
	first := e.Issues[0]
	msg := "agent: tool " + strconv.Quote(e.Tool) + ": " + why + "; last at " + string(e.Stage) + ": "
	if first.Path != "" {
		msg += first.Path + ": "
	}
	return msg + first.Message
}

// Unwrap gives enforce.ErrRepeated for a repeat, ErrBudget for the
// budget, else nothing.
func (e *ToolCallError) Unwrap() error {
	switch e.Reason {
	case enforce.ReasonRepeated:
		return enforce.ErrRepeated
	case enforce.ReasonBudget:
		return ErrBudget
	}
	return nil
}

func (e *RefusalError) Error() string {
	if e.Stop == StopContentFilter {
		return "agent: the provider's content filter stopped the answer"
	}
	return "agent: the model refused to answer"
}

// ProviderError is a failed call to a model provider, as an adapter
// reports it; the model-retry policy reads its Kind, HTTPStatus and
// RetryAfter. Its Error text ends with the provider's Message (or Err's),
// which never reaches the session stream: that carries words derived
// from Kind and HTTPStatus (one outside 100..599 left off).
type ProviderError struct {
	System     string           // the provider system, e.g. "openai", "anthropic"
	Kind       events.ErrorKind // rate_limit, overloaded, server_error, timeout, connection, bad_request, auth, …
	HTTPStatus int              // 0 when no HTTP response arrived
	// RetryAfter is the provider's Retry-After, 0 when absent or
	// unreadable. The adapters here read any value past 24 h ("1e400"
	// too) as 24 h, the largest they report; how long a retry then waits
	// is the policy's ([DefaultBackoff] caps it).
	RetryAfter time.Duration
	Message    string
	Err        error // the underlying error, if any
	// Unsupported, when not "", is the output mode the provider refused
	// the request for, as the adapter read its answer (a 400 naming
	// response_format: [ModeNative]; naming tools: [ModeTool]).
	// [WithAutoOutputMode] moves on to the next mode.
	Unsupported OutputMode
}

func (e *ProviderError) Error() string {
	msg := "agent: provider"
	if e.System != "" {
		msg += " " + e.System
	}
	msg += ": " + string(e.Kind)
	if e.HTTPStatus != 0 {
		msg += " (HTTP " + strconv.Itoa(e.HTTPStatus) + ")"
	}
	switch {
	case e.Message != "":
		msg += ": " + e.Message
	case e.Err != nil:
		msg += ": " + e.Err.Error()
	}
	return msg
}

// status is HTTPStatus when it is one (100..599), else 0: Go's client
// accepts any three digits, and events carries only real statuses.
func (e *ProviderError) status() int {
	if e.HTTPStatus < 100 || e.HTTPStatus > 599 {
		return 0
	}
	return e.HTTPStatus
}

func (e *ProviderError) Unwrap() error { return e.Err }

// Retryable reports whether calling again may succeed, by one rule, the
// session stream's: its Kind is retryable ([events.ErrorKind.Retryable])
// and, when a client error's status came with it, so is that status's
// kind ([events.KindForStatus]: 408 and 429 are; 400, 401, 403, 404, 422
// and the other 4xx are not, whatever the body said).
func (e *ProviderError) Retryable() bool {
	if s := e.status(); s >= 400 && s < 500 && !events.KindForStatus(s).Retryable() {
		return false
	}
	return e.Kind.Retryable()
}
