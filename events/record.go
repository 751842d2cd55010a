package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Record is one entry of a session stream's durable log. A Stream fills in
// every field except Event when it appends; a Log stores records as they are.
//
// Its JSON form, one line of a file log, is
//
//	{"seq":1,"id":"…","stream":"…","atMs":1754590940500,"kind":"turn_started","data":{…}}
//
// where kind names the event type (turn_started, turn_completed,
// turn_unqueued, turn_retry_scheduled, model_retry_scheduled,
// output_schema_retry, output_schema_exhausted) and data is the event's
// wire params without the envelope members.
type Record struct {
	Stream   string    // the session ID the record belongs to
	Sequence int64     // 1 for the first record, then +1 with no gaps
	ID       string    // unique record ID (UUIDv7 layout; see Stream.Append)
	Time     time.Time // when it was appended, to the millisecond
	Event    Event
}

// Event is the payload of a record: one of the value types TurnStarted,
// TurnCompleted, TurnUnqueued, TurnRetry, ModelRetry, SchemaRetry and
// SchemaExhausted. The set is closed.
type Event interface {
	// check validates the producer contract and returns the event as it
	// will be stored (defaults filled in, text normalized).
	check() (Event, error)
	info() *kind
	turn() string
	wire(w *jw) // appends the event's params members
}

// kind ties an event type to its record kind and wire method.
type kind struct {
	name     string // record kind in the log
	method   string // JSON-RPC method of the folded notification
	terminal bool   // resolves a turn-wait
	decode   func([]byte) (Event, error)
}

var kinds = map[string]*kind{}

func register[E Event](name, method string, terminal bool, fromWire func([]byte) (E, error)) *kind {
	k := &kind{
		name: name, method: method, terminal: terminal,
		decode: func(b []byte) (Event, error) { return fromWire(b) },
	}
	kinds[name] = k
	return k
}

func decodePlain[E any](b []byte) (E, error) {
	var e E
	err := json.Unmarshal(b, &e)
	return e, err
}

// TurnStarted records that a turn began running. Folds to turn/started.
type TurnStarted struct {
	TurnID    string `json:"turnId"`
	CommandID string `json:"commandId"` // defaults to TurnID (a fresh submit)
}

// TurnCompleted records a turn's terminal. Folds to turn/completed, which
// resolves WaitTurn.
type TurnCompleted struct {
	TurnID string `json:"turnId"`
	// Terminal is "completed", "failed" or "cancelled".
	Terminal string `json:"terminal"`
	// Error is required when Terminal is "failed" and forbidden otherwise.
	Error *TurnError `json:"error,omitempty"`
	// Reason is the runtime's free-text terminal reason, kept verbatim.
	Reason string `json:"reason,omitempty"`
	// Usage is the turn's token usage summed over its model calls; nil
	// when unknown.
	Usage *Usage `json:"usage,omitempty"`
	// Duration and TimeToFirstToken are sent in whole milliseconds; zero
	// means unmeasured and is left off the wire.
	Duration         time.Duration `json:"-"`
	TimeToFirstToken time.Duration `json:"-"`
}

// TurnError is the settled failure of a turn.
type TurnError struct {
	// Kind is one of the wire's failure classes: stepLimit, configError,
	// projectionError, logError, workflowLaunchError, environmentError,
	// modelError, launchError, authRequired.
	Kind      string `json:"kind"`
	Message   string `json:"message"`
	Retryable bool   `json:"retryable"`
}

// Usage is a turn's token usage.
type Usage struct {
	InputTokens     int `json:"inputTokens"`
	OutputTokens    int `json:"outputTokens"`
	CachedTokens    int `json:"cachedTokens"`
	ReasoningTokens int `json:"reasoningTokens"`
}

// TurnUnqueued records that a queued turn was reclaimed and will never run.
// Folds to turn/unqueued, which resolves WaitTurn.
type TurnUnqueued struct {
	TurnID    string `json:"turnId"`
	CommandID string `json:"commandId"` // defaults to TurnID
}

// TurnRetry records that a failed attempt of a turn will be retried after
// a backoff. Folds to turn/retryScheduled; it never resolves WaitTurn.
//
// Contract, checked on append: 1 <= Attempt < NextAttempt <= MaxAttempts
// and RetryDelay >= 0. Reason is passed through NormalizeReason.
type TurnRetry struct {
	TurnID      string        `json:"turnId"`
	Attempt     int           `json:"attempt"` // the attempt that failed
	NextAttempt int           `json:"nextAttempt"`
	MaxAttempts int           `json:"maxAttempts"`
	RetryDelay  time.Duration `json:"-"` // sent as retryDelayMs (whole milliseconds)
	Reason      string        `json:"reason"`
}

// ModelRetry records that a provider call failed and will be retried after
// a backoff. Folds to turn/modelRetryScheduled; it never resolves WaitTurn.
//
// Contract, checked on append: 1 <= Attempt < NextAttempt <= MaxAttempts,
// RetryDelay >= 0, HTTPStatus is 0 or 100..599. The provider's own message
// is deliberately not a field: clients show words derived from ErrorKind.
type ModelRetry struct {
	TurnID      string        `json:"turnId"`
	Attempt     int           `json:"attempt"` // the model attempt that failed
	NextAttempt int           `json:"nextAttempt"`
	MaxAttempts int           `json:"maxAttempts"`
	RetryDelay  time.Duration `json:"-"`                   // sent as retryDelayMs
	ErrorKind   ErrorKind     `json:"errorKind,omitempty"` // verbatim; the vocabulary is open
	HTTPStatus  int           `json:"httpStatus,omitempty"`
	System      string        `json:"system,omitempty"` // the provider system, e.g. "meta"
}

// SchemaRetry is the ledger event output_schema_retry: a final answer
// broke the output contract and a corrective turn was sent. Folds to
// output/schemaRetry.
type SchemaRetry struct {
	TurnID                string `json:"turnId"`
	Attempt               int    `json:"attempt"` // >= 1
	RetriesRemaining      int    `json:"retriesRemaining"`
	Iteration             int    `json:"iteration"` // >= 1
	Stage                 string `json:"stage"`     // "json-parse" or "schema-validate"
	Error                 string `json:"error"`     // the validator's message, verbatim
	Path                  string `json:"path,omitempty"`
	CorrectiveMessageHash string `json:"correctiveMessageHash"` // 8 lowercase hex digits
}

// SchemaExhausted is the ledger event output_schema_exhausted: a final
// answer broke the output contract and the answer stands (no retries left,
// or BrokenBy names the middleware whose rewrite broke a passing answer).
// Folds to output/schemaExhausted.
type SchemaExhausted struct {
	TurnID    string `json:"turnId"`
	Attempt   int    `json:"attempt"`   // >= 1
	Iteration int    `json:"iteration"` // >= 1
	Stage     string `json:"stage"`
	Error     string `json:"error"`
	Path      string `json:"path,omitempty"`
	BrokenBy  string `json:"brokenBy,omitempty"`
}

type (
	turnCompletedAlias TurnCompleted
	turnCompletedWire  struct {
		turnCompletedAlias
		DurationMs         int64 `json:"durationMs,omitempty"`
		TimeToFirstTokenMs int64 `json:"timeToFirstTokenMs,omitempty"`
	}
	turnRetryAlias TurnRetry
	turnRetryWire  struct {
		turnRetryAlias
		RetryDelayMs int64 `json:"retryDelayMs"`
	}
	modelRetryAlias ModelRetry
	modelRetryWire  struct {
		modelRetryAlias
		RetryDelayMs int64 `json:"retryDelayMs"`
	}
)

var (
	kindTurnStarted   = register("turn_started", "turn/started", false, decodePlain[TurnStarted])
	kindTurnCompleted = register("turn_completed", "turn/completed", true,
		func(b []byte) (TurnCompleted, error) {
			w, err := decodePlain[turnCompletedWire](b)
			e := TurnCompleted(w.turnCompletedAlias)
			e.Duration, e.TimeToFirstToken = ms(w.DurationMs), ms(w.TimeToFirstTokenMs)
			return e, err
		})
	kindTurnUnqueued = register("turn_unqueued", "turn/unqueued", true, decodePlain[TurnUnqueued])
	kindTurnRetry    = register("turn_retry_scheduled", "turn/retryScheduled", false,
		func(b []byte) (TurnRetry, error) {
			w, err := decodePlain[turnRetryWire](b)
			e := TurnRetry(w.turnRetryAlias)
			e.RetryDelay = ms(w.RetryDelayMs)
			return e, err
		})
	kindModelRetry = register("model_retry_scheduled", "turn/modelRetryScheduled", false,
		func(b []byte) (ModelRetry, error) {
			w, err := decodePlain[modelRetryWire](b)
			e := ModelRetry(w.modelRetryAlias)
			e.RetryDelay = ms(w.RetryDelayMs)
			return e, err
		})
	kindSchemaRetry     = register("output_schema_retry", "output/schemaRetry", false, decodePlain[SchemaRetry])
	kindSchemaExhausted = register("output_schema_exhausted", "output/schemaExhausted", false, decodePlain[SchemaExhausted])
)

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

func (TurnStarted) info() *kind     { return kindTurnStarted }
func (TurnCompleted) info() *kind   { return kindTurnCompleted }
func (TurnUnqueued) info() *kind    { return kindTurnUnqueued }
func (TurnRetry) info() *kind       { return kindTurnRetry }
func (ModelRetry) info() *kind      { return kindModelRetry }
func (SchemaRetry) info() *kind     { return kindSchemaRetry }
func (SchemaExhausted) info() *kind { return kindSchemaExhausted }

func (e TurnStarted) turn() string     { return e.TurnID }
func (e TurnCompleted) turn() string   { return e.TurnID }
func (e TurnUnqueued) turn() string    { return e.TurnID }
func (e TurnRetry) turn() string       { return e.TurnID }
func (e ModelRetry) turn() string      { return e.TurnID }
func (e SchemaRetry) turn() string     { return e.TurnID }
func (e SchemaExhausted) turn() string { return e.TurnID }

func (e TurnStarted) check() (Event, error) {
	if err := checkIDs("turn_started", e.TurnID, e.CommandID); err != nil {
		return nil, err
	}
	if e.CommandID == "" {
		e.CommandID = e.TurnID
	}
	return e, nil
}

func (e TurnUnqueued) check() (Event, error) {
	if err := checkIDs("turn_unqueued", e.TurnID, e.CommandID); err != nil {
		return nil, err
	}
	if e.CommandID == "" {
		e.CommandID = e.TurnID
	}
	return e, nil
}

var turnErrorKinds = map[string]bool{
	"stepLimit": true, "configError": true, "projectionError": true, "logError": true,
	"workflowLaunchError": true, "environmentError": true, "modelError": true,
	"launchError": true, "authRequired": true,
}

func (e TurnCompleted) check() (Event, error) {
	switch {
	case e.TurnID == "":
		return nil, invalid("turn_completed: turnId is empty")
	case e.Terminal != "completed" && e.Terminal != "failed" && e.Terminal != "cancelled":
		return nil, invalid("turn_completed: terminal %q is not completed, failed or cancelled", e.Terminal)
	case e.Terminal == "failed" && e.Error == nil:
		return nil, invalid("turn_completed: a failed turn needs an error")
	case e.Terminal != "failed" && e.Error != nil:
		return nil, invalid("turn_completed: a %s turn has no error", e.Terminal)
	case e.Error != nil && !turnErrorKinds[e.Error.Kind]:
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

func checkAttempts(name, turnID string, attempt, next, max int, delay time.Duration) error {
	switch {
	case turnID == "":
		return invalid("%s: turnId is empty", name)
	case !(1 <= attempt && attempt < next && next <= max):
		return invalid("%s: want 1 <= attempt < nextAttempt <= maxAttempts, got %d, %d, %d", name, attempt, next, max)
	case delay < 0:
		return invalid("%s: retry delay %v is negative", name, delay)
	}
	return nil
}

func (e TurnRetry) check() (Event, error) {
	if err := checkAttempts("turn_retry_scheduled", e.TurnID, e.Attempt, e.NextAttempt, e.MaxAttempts, e.RetryDelay); err != nil {
		return nil, err
	}
	e.Reason = NormalizeReason(e.Reason)
	return e, checkIDs("turn_retry_scheduled", e.TurnID)
}

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

func checkLedger(name, turnID string, attempt, iteration int, stage, msg string) error {
	switch {
	case turnID == "":
		return invalid("%s: turnId is empty", name)
	case attempt < 1:
		return invalid("%s: attempt %d < 1", name, attempt)
	case iteration < 1:
		return invalid("%s: iteration %d < 1", name, iteration)
	case stage != "json-parse" && stage != "schema-validate":
		return invalid("%s: stage %q is not json-parse or schema-validate", name, stage)
	case msg == "":
		return invalid("%s: error is empty", name)
	}
	return nil
}

func (e SchemaRetry) check() (Event, error) {
	if err := checkLedger("output_schema_retry", e.TurnID, e.Attempt, e.Iteration, e.Stage, e.Error); err != nil {
		return nil, err
	}
	if e.RetriesRemaining < 0 {
		return nil, invalid("output_schema_retry: retriesRemaining %d < 0", e.RetriesRemaining)
	}
	if !isHex8(e.CorrectiveMessageHash) {
		return nil, invalid("output_schema_retry: correctiveMessageHash %q is not 8 lowercase hex digits", e.CorrectiveMessageHash)
	}
	e.Error, e.Path = text(e.Error), text(e.Path)
	return e, checkIDs("output_schema_retry", e.TurnID)
}

func (e SchemaExhausted) check() (Event, error) {
	if err := checkLedger("output_schema_exhausted", e.TurnID, e.Attempt, e.Iteration, e.Stage, e.Error); err != nil {
		return nil, err
	}
	e.Error, e.Path, e.BrokenBy = text(e.Error), text(e.Path), text(e.BrokenBy)
	return e, checkIDs("output_schema_exhausted", e.TurnID)
}

// maxText bounds each free-text field of an event (an error message, a
// reason), so every record fits a log line and an SSE frame.
const maxText = 16 << 10

// text makes a free-text field safe to record: valid UTF-8 (invalid bytes
// become U+FFFD, as the JSON on the wire would show them anyway, so live
// and replayed frames agree) and at most maxText bytes, cut on a rune
// boundary.
func text(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= maxText {
		return s
	}
	n := maxText - len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// maxID bounds session, turn and command IDs.
const maxID = 256

// checkIDs refuses IDs that could not travel intact: empty, over maxID
// bytes, invalid UTF-8, or holding control characters (which would break
// an SSE id: line or a Last-Event-ID header). CommandID may be empty.
func checkIDs(kind string, turnID string, commandID ...string) error {
	if turnID == "" {
		return invalid("%s: turnId is empty", kind)
	}
	for _, id := range append([]string{turnID}, commandID...) {
		if id == "" {
			continue
		}
		if err := checkID(id); err != nil {
			return invalid("%s: id %.40q %s", kind, id, err)
		}
	}
	return nil
}

func checkID(id string) error {
	switch {
	case len(id) > maxID:
		return fmt.Errorf("is longer than %d bytes", maxID)
	case !utf8.ValidString(id):
		return errors.New("is not valid UTF-8")
	case strings.ContainsFunc(id, unicode.IsControl):
		return errors.New("holds control characters")
	}
	return nil
}

func isHex8(s string) bool {
	if len(s) != 8 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !('0' <= s[i] && s[i] <= '9' || 'a' <= s[i] && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// checkEvent validates ev, rejecting nil.
func checkEvent(ev Event) (Event, error) {
	if ev == nil {
		return nil, invalid("nil event")
	}
	return ev.check()
}

type recordJSON struct {
	Seq    int64           `json:"seq"`
	ID     string          `json:"id"`
	Stream string          `json:"stream"`
	AtMs   int64           `json:"atMs"`
	Kind   string          `json:"kind"`
	Data   json.RawMessage `json:"data"`
}

// MarshalJSON encodes r as one line of a file log (no trailing newline).
func (r Record) MarshalJSON() ([]byte, error) {
	if r.Event == nil {
		return nil, invalid("record %d has no event", r.Sequence)
	}
	return appendRecord(nil, r), nil
}

func appendRecord(b []byte, r Record) []byte {
	w := jw{b: b}
	w.open("")
	w.int("seq", r.Sequence)
	w.str("id", r.ID)
	w.str("stream", r.Stream)
	w.int("atMs", r.Time.UnixMilli())
	w.str("kind", r.Event.info().name)
	w.open("data")
	r.Event.wire(&w)
	w.close()
	w.close()
	return w.b
}

// UnmarshalJSON decodes a record written by MarshalJSON. It checks the
// shape and the event's producer contract, so a record that decodes can
// always be folded.
func (r *Record) UnmarshalJSON(b []byte) error {
	var j recordJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	k := kinds[j.Kind]
	switch {
	case k == nil:
		return fmt.Errorf("unknown record kind %q", j.Kind)
	case j.Seq < 1:
		return fmt.Errorf("sequence %d < 1", j.Seq)
	case j.ID == "" || j.Stream == "":
		return fmt.Errorf("record %d: empty id or stream", j.Seq)
	case len(bytes.TrimSpace(j.Data)) == 0 || j.Data[0] != '{':
		return fmt.Errorf("record %d: data is not an object", j.Seq)
	}
	ev, err := k.decode(j.Data)
	if err != nil {
		return fmt.Errorf("record %d: %w", j.Seq, err)
	}
	ev, err = ev.check()
	if err != nil {
		return fmt.Errorf("record %d: %w", j.Seq, err)
	}
	*r = Record{Stream: j.Stream, Sequence: j.Seq, ID: j.ID, Time: time.UnixMilli(j.AtMs).UTC(), Event: ev}
	return nil
}
