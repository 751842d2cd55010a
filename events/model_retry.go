package events

import "time"

// MethodModelRetry is the method [ModelRetry] folds to.
const MethodModelRetry Method = "turn/modelRetryScheduled"

// ModelRetry records that a provider call failed and will be retried after
// a backoff. Record kind model_retry_scheduled; folds to
// turn/modelRetryScheduled, which never resolves WaitTurn. Describe reads
// "attempt 1/3 · retrying in 4s · rate limited", the last part derived
// from ErrorKind only.
//
// Contract, checked on append: 1 <= Attempt < NextAttempt <= MaxAttempts,
// RetryDelay >= 0, HTTPStatus is 0 or 100..599. The provider's own message
// is deliberately not a field: clients show words derived from ErrorKind.
type ModelRetry struct {
	TurnID      string        `json:"turnId"`
	Attempt     int           `json:"attempt"` // the model call that failed
	NextAttempt int           `json:"nextAttempt"`
	MaxAttempts int           `json:"maxAttempts"`
	RetryDelay  time.Duration `json:"-"`                   // sent as retryDelayMs
	ErrorKind   ErrorKind     `json:"errorKind,omitempty"` // verbatim; the vocabulary is open
	HTTPStatus  int           `json:"httpStatus,omitempty"`
	System      string        `json:"system,omitempty"` // the provider system, e.g. "meta"
}

type (
	modelRetryAlias ModelRetry
	modelRetryWire  struct {
		modelRetryAlias
		RetryDelayMs int64 `json:"retryDelayMs"`
	}
)

var kindModelRetry = register("model_retry_scheduled", MethodModelRetry, false, decodeModelRetry)

func decodeModelRetry(b []byte) (ModelRetry, error) {
	w, err := decodePlain[modelRetryWire](b)
	e := ModelRetry(w.modelRetryAlias)
	e.RetryDelay = ms(w.RetryDelayMs)
	return e, err
}

// MarshalJSON encodes e as its wire params, RetryDelay as retryDelayMs.
func (e ModelRetry) MarshalJSON() ([]byte, error) { return marshalWire(e), nil }

// UnmarshalJSON decodes wire params (a notification's, whose envelope
// members it ignores, or a record's data), RetryDelay from retryDelayMs.
func (e *ModelRetry) UnmarshalJSON(b []byte) (err error) {
	*e, err = decodeModelRetry(b)
	return err
}

func (ModelRetry) info() *kind    { return kindModelRetry }
func (e ModelRetry) turn() string { return e.TurnID }

func (e ModelRetry) check() (Event, error) {
	if err := checkAttempts("model_retry_scheduled", e.TurnID, e.Attempt, e.NextAttempt, e.MaxAttempts, e.RetryDelay); err != nil {
		return nil, err
	}
	if e.HTTPStatus != 0 && (e.HTTPStatus < 100 || e.HTTPStatus > 599) {
		return nil, invalid("model_retry_scheduled: http status %d out of range", e.HTTPStatus)
	}
	e.ErrorKind, e.System = ErrorKind(text(string(e.ErrorKind))), text(e.System)
	return e, checkIDs("model_retry_scheduled", e.TurnID)
}

func (e ModelRetry) wire(w *jw) {
	w.str("turnId", e.TurnID)
	w.int("attempt", int64(e.Attempt))
	w.int("nextAttempt", int64(e.NextAttempt))
	w.int("maxAttempts", int64(e.MaxAttempts))
	w.int("retryDelayMs", e.RetryDelay.Milliseconds())
	w.strOpt("errorKind", string(e.ErrorKind))
	w.intOpt("httpStatus", int64(e.HTTPStatus))
	w.strOpt("system", e.System)
}

func (e ModelRetry) describe(elapsed time.Duration) string {
	return retryLine(e.Attempt, e.MaxAttempts, e.RetryDelay, elapsed, e.ErrorKind.words())
}
