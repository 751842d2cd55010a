package events

import "time"

// MethodTurnCompleted is the method [TurnCompleted] folds to.
const MethodTurnCompleted Method = "turn/completed"

// TurnCompleted records a turn's terminal. Record kind turn_completed;
// folds to turn/completed, which resolves WaitTurn. Describe reads "turn
// completed", "turn cancelled", or "turn failed · " and the failure kind
// in words ("turn failed · step limit reached"); never the message.
//
// Contract, checked on append: Terminal is one of the constants below;
// Error is set iff Terminal is [TerminalFailed], with a Kind from the
// constants below; durations and token counts are not negative.
type TurnCompleted struct {
	TurnID   string   `json:"turnId"`
	Terminal Terminal `json:"terminal"`
	// Error is required when Terminal is TerminalFailed and forbidden
	// otherwise.
	Error *TurnError `json:"error,omitempty"`
	// Reason is the runtime's free-text terminal reason, kept verbatim.
	Reason string `json:"reason,omitempty"`
	// Usage is the turn's token usage summed over its model calls; nil
	// (and absent on the wire) when unknown. See Usage.
	Usage *Usage `json:"usage,omitempty"`
	// Duration and TimeToFirstToken are sent in whole milliseconds; zero
	// means unmeasured and is left off the wire.
	Duration         time.Duration `json:"-"`
	TimeToFirstToken time.Duration `json:"-"`
}

// Terminal is how a turn ended.
type Terminal string

// The turn terminals.
const (
	TerminalCompleted Terminal = "completed"
	TerminalFailed    Terminal = "failed"
	TerminalCancelled Terminal = "cancelled"
)

// TurnError is the settled failure of a turn.
type TurnError struct {
	Kind FailureKind `json:"kind"`
	// Message is shown to developers (it is on the wire), never rendered
	// by Describe. Producers keep a provider's own text out of it.
	Message   string `json:"message"`
	Retryable bool   `json:"retryable"`
}

// FailureKind is the wire's class of a turn failure ([TurnError].Kind).
type FailureKind string

// The turn failure classes.
const (
	FailureStepLimit           FailureKind = "stepLimit"
	FailureConfigError         FailureKind = "configError"
	FailureProjectionError     FailureKind = "projectionError"
	FailureLogError            FailureKind = "logError"
	FailureWorkflowLaunchError FailureKind = "workflowLaunchError"
	FailureEnvironmentError    FailureKind = "environmentError"
	FailureModelError          FailureKind = "modelError"
	FailureLaunchError         FailureKind = "launchError"
	FailureAuthRequired        FailureKind = "authRequired"
)

// words is what a client shows for k, "" for a kind outside the
// vocabulary.
func (k FailureKind) words() string {
	switch k {
	case FailureStepLimit:
		return "step limit reached"
	case FailureConfigError:
		return "configuration error"
	case FailureProjectionError:
		return "projection error"
	case FailureLogError:
		return "event log error"
	case FailureWorkflowLaunchError:
		return "workflow launch failed"
	case FailureEnvironmentError:
		return "environment error"
	case FailureModelError:
		return "model error"
	case FailureLaunchError:
		return "launch failed"
	case FailureAuthRequired:
		return "authentication required"
	}
	return ""
}

// Usage is a turn's token usage. The wire requires all four counts when
// usage is sent, so a producer sets TurnCompleted.Usage only when it
// knows all four: a zero here is a measured zero, never a stand-in for a
// count the provider did not report.
type Usage struct {
	InputTokens     int `json:"inputTokens"`
	OutputTokens    int `json:"outputTokens"`
	CachedTokens    int `json:"cachedTokens"`
	ReasoningTokens int `json:"reasoningTokens"`
}

type (
	turnCompletedAlias TurnCompleted
	turnCompletedWire  struct {
		turnCompletedAlias
		DurationMs         int64 `json:"durationMs,omitempty"`
		TimeToFirstTokenMs int64 `json:"timeToFirstTokenMs,omitempty"`
	}
)

var kindTurnCompleted = register("turn_completed", MethodTurnCompleted, true, decodeTurnCompleted)

func decodeTurnCompleted(b []byte) (TurnCompleted, error) {
	w, err := decodePlain[turnCompletedWire](b)
	e := TurnCompleted(w.turnCompletedAlias)
	e.Duration, e.TimeToFirstToken = ms(w.DurationMs), ms(w.TimeToFirstTokenMs)
	return e, err
}

// MarshalJSON encodes e as its wire params, the durations as durationMs
// and timeToFirstTokenMs.
func (e TurnCompleted) MarshalJSON() ([]byte, error) { return marshalWire(e), nil }

// UnmarshalJSON decodes wire params (a notification's, whose envelope
// members it ignores, or a record's data), the durations from durationMs
// and timeToFirstTokenMs.
func (e *TurnCompleted) UnmarshalJSON(b []byte) (err error) {
	*e, err = decodeTurnCompleted(b)
	return err
}

func (TurnCompleted) info() *kind    { return kindTurnCompleted }
func (e TurnCompleted) turn() string { return e.TurnID }

func (e TurnCompleted) check() (Event, error) {
	switch {
	case e.TurnID == "":
		return nil, invalid("turn_completed: turnId is empty")
	case e.Terminal != TerminalCompleted && e.Terminal != TerminalFailed && e.Terminal != TerminalCancelled:
		return nil, invalid("turn_completed: terminal %q is not completed, failed or cancelled", e.Terminal)
	case e.Terminal == TerminalFailed && e.Error == nil:
		return nil, invalid("turn_completed: a failed turn needs an error")
	case e.Terminal != TerminalFailed && e.Error != nil:
		return nil, invalid("turn_completed: a %s turn has no error", e.Terminal)
	case e.Error != nil && e.Error.Kind.words() == "":
		return nil, invalid("turn_completed: error kind %q is not a turn error kind", e.Error.Kind)
	case e.Duration < 0 || e.TimeToFirstToken < 0:
		return nil, invalid("turn_completed: negative duration")
	case e.Usage != nil && (e.Usage.InputTokens < 0 || e.Usage.OutputTokens < 0 || e.Usage.CachedTokens < 0 || e.Usage.ReasoningTokens < 0):
		return nil, invalid("turn_completed: negative token count")
	}
	if err := checkIDs("turn_completed", e.TurnID); err != nil {
		return nil, err
	}
	e.Reason = text(e.Reason)
	if e.Error != nil { // keep the caller's struct out of the log
		te := *e.Error
		te.Message = text(te.Message)
		e.Error = &te
	}
	if e.Usage != nil {
		u := *e.Usage
		e.Usage = &u
	}
	return e, nil
}

func (e TurnCompleted) wire(w *jw) {
	w.str("turnId", e.TurnID)
	w.str("terminal", string(e.Terminal))
	if e.Error != nil {
		w.open("error")
		w.str("kind", string(e.Error.Kind))
		w.str("message", e.Error.Message)
		w.bool("retryable", e.Error.Retryable)
		w.close()
	}
	w.strOpt("reason", e.Reason)
	if u := e.Usage; u != nil {
		w.open("usage")
		w.int("inputTokens", int64(u.InputTokens))
		w.int("outputTokens", int64(u.OutputTokens))
		w.int("cachedTokens", int64(u.CachedTokens))
		w.int("reasoningTokens", int64(u.ReasoningTokens))
		w.close()
	}
	w.intOpt("durationMs", e.Duration.Milliseconds())
	w.intOpt("timeToFirstTokenMs", e.TimeToFirstToken.Milliseconds())
}

func (e TurnCompleted) describe(time.Duration) string {
	switch e.Terminal {
	case TerminalCompleted, TerminalCancelled:
		return "turn " + string(e.Terminal)
	case TerminalFailed:
		if e.Error != nil && e.Error.Kind.words() != "" {
			return "turn failed · " + e.Error.Kind.words()
		}
		return "turn failed"
	}
	return "turn ended" // a terminal this package does not know
}
