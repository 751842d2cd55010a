package events

import (
	"encoding/json"
	"math"
	"strconv"
	"time"
)

// ErrorKind classifies a failed model call (ModelRetry.ErrorKind). The
// vocabulary is open: a producer may record other kinds, which Describe
// shows as a generic failure.
type ErrorKind string

// The error kinds a producer should use.
const (
	KindRateLimit   ErrorKind = "rate_limit"
	KindOverloaded  ErrorKind = "overloaded"
	KindServerError ErrorKind = "server_error"
	KindTimeout     ErrorKind = "timeout"
	KindConnection  ErrorKind = "connection"
	KindBadRequest  ErrorKind = "bad_request"
	KindAuth        ErrorKind = "auth"
	KindUnknown     ErrorKind = "unknown"
)

// kindWords is the one mapping from an error kind to the words a client
// shows. A provider's own message is never shown.
func kindWords(k string) string {
	switch ErrorKind(k) {
	case KindRateLimit:
		return "rate limited"
	case KindOverloaded:
		return "provider overloaded"
	case KindServerError:
		return "provider error"
	case KindTimeout:
		return "timed out"
	case KindConnection:
		return "connection lost"
	}
	return "model call failed"
}

// Describe renders a notification as one line for a person watching a turn,
// elapsed after the notification arrived:
//
//	turn/retryScheduled       attempt 1/3 · retrying in 4s · <reason>
//	turn/modelRetryScheduled  rate limited · retrying in 4s · attempt 1/3
//
// The attempt shown is the one that failed. The countdown is retryDelayMs
// minus elapsed, rounded up to whole seconds; at or below zero it reads
// "retrying now". Model retries show words derived from errorKind only.
// Other methods get a short fixed phrase ("turn completed", "turn failed",
// "output rejected (schema-validate) · 2 retries left", …); an unknown
// method is returned as is.
func Describe(n Notification, elapsed time.Duration) string {
	var p struct {
		Attempt          int    `json:"attempt"`
		MaxAttempts      int    `json:"maxAttempts"`
		RetryDelayMs     int64  `json:"retryDelayMs"`
		Reason           string `json:"reason"`
		ErrorKind        string `json:"errorKind"`
		Terminal         string `json:"terminal"`
		Stage            string `json:"stage"`
		RetriesRemaining int    `json:"retriesRemaining"`
		BrokenBy         string `json:"brokenBy"`
	}
	_ = json.Unmarshal(n.Params, &p) // a malformed frame renders from zero values
	attempt := "attempt " + strconv.Itoa(p.Attempt) + "/" + strconv.Itoa(p.MaxAttempts)
	switch n.Method {
	case kindTurnRetry.method:
		return attempt + " · " + countdown(p.RetryDelayMs, elapsed) + " · " + NormalizeReason(p.Reason)
	case kindModelRetry.method:
		return kindWords(p.ErrorKind) + " · " + countdown(p.RetryDelayMs, elapsed) + " · " + attempt
	case kindTurnStarted.method:
		return "turn started"
	case kindTurnUnqueued.method:
		return "turn unqueued"
	case kindTurnCompleted.method:
		if p.Terminal == "" {
			p.Terminal = "ended"
		}
		return "turn " + p.Terminal
	case kindSchemaRetry.method:
		left := strconv.Itoa(p.RetriesRemaining) + " retries left"
		if p.RetriesRemaining == 1 {
			left = "1 retry left"
		}
		return "output rejected (" + p.Stage + ") · asking again · " + left
	case kindSchemaExhausted.method:
		if p.BrokenBy != "" {
			return "output rejected (" + p.Stage + ") · broken by " + p.BrokenBy
		}
		return "output rejected (" + p.Stage + ") · no retries left"
	}
	return n.Method
}

func countdown(delayMs int64, elapsed time.Duration) string {
	delayMs = max(0, min(delayMs, int64(math.MaxInt64/time.Millisecond)))
	left := time.Duration(delayMs)*time.Millisecond - max(elapsed, 0)
	if left <= 0 {
		return "retrying now"
	}
	secs := left / time.Second
	if left%time.Second != 0 {
		secs++ // rounded up: "in 1s" until it is due
	}
	return "retrying in " + strconv.FormatInt(int64(secs), 10) + "s"
}
