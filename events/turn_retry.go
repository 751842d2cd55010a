package events

import "time"

// MethodTurnRetry is the method [TurnRetry] folds to.
const MethodTurnRetry Method = "turn/retryScheduled"

// TurnRetry records that a turn's failed answer, or the whole turn, will
// be retried (a retried provider call is a [ModelRetry]). Record kind
// turn_retry_scheduled; folds to turn/retryScheduled, which never
// resolves WaitTurn. Describe reads "attempt 1/3 · retrying in 4s ·
// <reason>". Kind (retryKind) says what Attempt counts. Append checks
// 1 <= Attempt < NextAttempt <= MaxAttempts and RetryDelay >= 0, and
// makes Reason one line of at most 160 runes.
type TurnRetry struct {
	TurnID      string        `json:"turnId"`
	Attempt     int           `json:"attempt"` // the attempt that failed
	NextAttempt int           `json:"nextAttempt"`
	MaxAttempts int           `json:"maxAttempts"`
	RetryDelay  time.Duration `json:"-"` // sent as retryDelayMs (whole milliseconds)
	// Reason is sent as Append normalizes it (the wire wants it
	// non-empty, one line, at most 160 characters): invalid UTF-8 becomes
	// U+FFFD, control and bidi-control characters are removed, each run
	// of white space becomes one space, the ends are trimmed, the text is
	// clipped on a rune boundary to at most 160 runes, and an empty result
	// reads "retry scheduled". Producers pass the text as they have it.
	Reason string `json:"reason"`
	// Kind says what Attempt counts: the final answers of one run
	// ([RetryCorrective]) or whole runs of the turn ([RetryTurn]); absent
	// when empty (a producer that does not say, or an older record).
	Kind RetryKind `json:"retryKind,omitempty"`
}

// RetryKind is what a retry runs again: the one vocabulary of retries, in
// the session stream and for an agent's observer. A [TurnRetry] is
// corrective or turn (Append refuses any other non-empty kind); a retried
// model call is a [ModelRetry] event, and RetryModel to an observer.
type RetryKind string

// The retry kinds.
const (
	// RetryCorrective: the final answer broke the output contract and a
	// corrective turn is sent at once; Attempt numbers the answers
	// (output/schemaRetry follows with the ledger row).
	RetryCorrective RetryKind = "corrective"
	// RetryTurn: the whole turn failed and runs again from the start
	// after the delay; Attempt numbers the runs.
	RetryTurn RetryKind = "turn"
	// RetryModel: one model call failed and is made again after the
	// delay (never a TurnRetry's kind).
	RetryModel RetryKind = "model"
)

type (
	turnRetryAlias TurnRetry
	turnRetryWire  struct {
		turnRetryAlias
		RetryDelayMs int64 `json:"retryDelayMs"`
	}
)

var kindTurnRetry = register("turn_retry_scheduled", MethodTurnRetry, false, decodeTurnRetry)

func decodeTurnRetry(b []byte) (TurnRetry, error) {
	w, err := decodePlain[turnRetryWire](b)
	e := TurnRetry(w.turnRetryAlias)
	e.RetryDelay = ms(w.RetryDelayMs)
	return e, err
}

// MarshalJSON encodes e as its wire params, RetryDelay as retryDelayMs.
func (e TurnRetry) MarshalJSON() ([]byte, error) { return marshalWire(e), nil }

// UnmarshalJSON decodes wire params (a notification's, whose envelope
// members it ignores, or a record's data), RetryDelay from retryDelayMs.
func (e *TurnRetry) UnmarshalJSON(b []byte) (err error) {
	*e, err = decodeTurnRetry(b)
	return err
}

func (TurnRetry) info() *kind    { return kindTurnRetry }
func (e TurnRetry) turn() string { return e.TurnID }

func (e TurnRetry) check() (Event, error) {
	if err := checkAttempts("turn_retry_scheduled", e.TurnID, e.Attempt, e.NextAttempt, e.MaxAttempts, e.RetryDelay); err != nil {
		return nil, err
	}
	if e.Kind != "" && e.Kind != RetryCorrective && e.Kind != RetryTurn {
		return nil, invalid("turn_retry_scheduled: retry kind %q is not corrective or turn", e.Kind)
	}
	e.Reason = normalizeReason(e.Reason)
	return e, checkIDs("turn_retry_scheduled", e.TurnID)
}

func (e TurnRetry) wire(w *jw) {
	w.str("turnId", e.TurnID)
	w.int("attempt", int64(e.Attempt))
	w.int("nextAttempt", int64(e.NextAttempt))
	w.int("maxAttempts", int64(e.MaxAttempts))
	w.int("retryDelayMs", e.RetryDelay.Milliseconds())
	w.str("reason", e.Reason)
	w.strOpt("retryKind", string(e.Kind))
}

func (e TurnRetry) describe(elapsed time.Duration) string {
	return retryLine(e.Attempt, e.MaxAttempts, e.RetryDelay, elapsed, normalizeReason(e.Reason))
}
