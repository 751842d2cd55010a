package events

import "time"

// TurnRetry records that a failed attempt of a turn will be retried after
// a backoff. Record kind turn_retry_scheduled; folds to
// turn/retryScheduled, which never resolves WaitTurn. Describe reads
// "attempt 1/3 · retrying in 4s · <reason>".
//
// Contract, checked on append: 1 <= Attempt < NextAttempt <= MaxAttempts
// and RetryDelay >= 0. Append normalizes Reason (the wire wants it
// non-empty, one line, at most 160 characters): invalid UTF-8 becomes
// U+FFFD, control and bidi-control characters are removed, each run of
// white space becomes one space, the ends are trimmed, the text is cut on
// a rune boundary to at most 160 runes, and an empty result reads "retry
// scheduled". Producers pass the text as they have it.
type TurnRetry struct {
	TurnID      string        `json:"turnId"`
	Attempt     int           `json:"attempt"` // the attempt that failed
	NextAttempt int           `json:"nextAttempt"`
	MaxAttempts int           `json:"maxAttempts"`
	RetryDelay  time.Duration `json:"-"` // sent as retryDelayMs (whole milliseconds)
	Reason      string        `json:"reason"`
}

type (
	turnRetryAlias TurnRetry
	turnRetryWire  struct {
		turnRetryAlias
		RetryDelayMs int64 `json:"retryDelayMs"`
	}
)

var kindTurnRetry = register("turn_retry_scheduled", "turn/retryScheduled", false,
	func(b []byte) (TurnRetry, error) {
		w, err := decodePlain[turnRetryWire](b)
		e := TurnRetry(w.turnRetryAlias)
		e.RetryDelay = ms(w.RetryDelayMs)
		return e, err
	})

func (TurnRetry) info() *kind    { return kindTurnRetry }
func (e TurnRetry) turn() string { return e.TurnID }

func (e TurnRetry) check() (Event, error) {
	if err := checkAttempts("turn_retry_scheduled", e.TurnID, e.Attempt, e.NextAttempt, e.MaxAttempts, e.RetryDelay); err != nil {
		return nil, err
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
}

func (e TurnRetry) describe(elapsed time.Duration) string {
	return retryLine(e.Attempt, e.MaxAttempts, e.RetryDelay, elapsed, normalizeReason(e.Reason))
}
