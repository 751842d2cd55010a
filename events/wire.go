package events

import (
	"encoding/json"
	"strconv"
)

// jw appends a JSON object member by member. Strings are escaped exactly
// as encoding/json escapes them, so frames are the same bytes whichever
// path wrote them; the hand-written path is just faster.
type jw struct {
	b     []byte
	first bool
}

func (w *jw) key(k string) {
	if w.first {
		w.first = false
	} else {
		w.b = append(w.b, ',')
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

func (w *jw) str(k, v string) {
	w.key(k)
	w.b = appendJSONString(w.b, v)
}

func (w *jw) strOpt(k, v string) {
	if v != "" {
		w.str(k, v)
	}
}

func (w *jw) int(k string, v int64) {
	w.key(k)
	w.b = strconv.AppendInt(w.b, v, 10)
}

func (w *jw) intOpt(k string, v int64) {
	if v != 0 {
		w.int(k, v)
	}
}

func (w *jw) bool(k string, v bool) {
	w.key(k)
	w.b = strconv.AppendBool(w.b, v)
}

func (w *jw) open(k string) {
	if k != "" {
		w.key(k)
	}
	w.b = append(w.b, '{')
	w.first = true
}

func (w *jw) close() {
	w.b = append(w.b, '}')
	w.first = false
}

// appendJSONString appends s as a JSON string: bytes that encoding/json
// would escape (or invalid UTF-8) send s through encoding/json itself.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func (e TurnStarted) wire(w *jw) {
	w.str("turnId", e.TurnID)
	w.str("commandId", e.CommandID)
}

func (e TurnUnqueued) wire(w *jw) {
	w.str("turnId", e.TurnID)
	w.str("commandId", e.CommandID)
}

func (e TurnCompleted) wire(w *jw) {
	w.str("turnId", e.TurnID)
	w.str("terminal", e.Terminal)
	if e.Error != nil {
		w.open("error")
		w.str("kind", e.Error.Kind)
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

func (e TurnRetry) wire(w *jw) {
	w.str("turnId", e.TurnID)
	w.int("attempt", int64(e.Attempt))
	w.int("nextAttempt", int64(e.NextAttempt))
	w.int("maxAttempts", int64(e.MaxAttempts))
	w.int("retryDelayMs", e.RetryDelay.Milliseconds())
	w.str("reason", e.Reason)
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

func (e SchemaRetry) wire(w *jw) {
	w.str("turnId", e.TurnID)
	w.int("attempt", int64(e.Attempt))
	w.int("retriesRemaining", int64(e.RetriesRemaining))
	w.int("iteration", int64(e.Iteration))
	w.str("stage", e.Stage)
	w.str("error", e.Error)
	w.strOpt("path", e.Path)
	w.str("correctiveMessageHash", e.CorrectiveMessageHash)
}

func (e SchemaExhausted) wire(w *jw) {
	w.str("turnId", e.TurnID)
	w.int("attempt", int64(e.Attempt))
	w.int("iteration", int64(e.Iteration))
	w.str("stage", e.Stage)
	w.str("error", e.Error)
	w.strOpt("path", e.Path)
	w.strOpt("brokenBy", e.BrokenBy)
}
