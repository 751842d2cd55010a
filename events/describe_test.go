package events

import (
	"testing"
	"time"
)

func TestDescribe(t *testing.T) {
	retry := TurnRetry{TurnID: "t", Attempt: 1, NextAttempt: 2, MaxAttempts: 3, RetryDelay: 4 * time.Second, Reason: "provider stream\ndisconnected"}
	model := func(kind ErrorKind) Event {
		return ModelRetry{TurnID: "t", Attempt: 2, NextAttempt: 3, MaxAttempts: 3, RetryDelay: 4 * time.Second, ErrorKind: kind, HTTPStatus: 503}
	}
	tests := []struct {
		name    string
		ev      Event
		elapsed time.Duration
		want    string
	}{
		{"a turn retry shows attempt, countdown and reason", retry, 0, "attempt 1/3 · retrying in 4s · provider stream disconnected"},
		{"the countdown rounds up to whole seconds", retry, time.Millisecond, "attempt 1/3 · retrying in 4s · provider stream disconnected"},
		{"the countdown runs down", retry, 3001 * time.Millisecond, "attempt 1/3 · retrying in 1s · provider stream disconnected"},
		{"a countdown at zero reads retrying now", retry, 4 * time.Second, "attempt 1/3 · retrying now · provider stream disconnected"},
		{"a countdown never goes negative", retry, time.Minute, "attempt 1/3 · retrying now · provider stream disconnected"},
		{"rate_limit reads rate limited", model(KindRateLimit), 0, "rate limited · retrying in 4s · attempt 2/3"},
		{"overloaded reads provider overloaded", model(KindOverloaded), 0, "provider overloaded · retrying in 4s · attempt 2/3"},
		{"server_error reads provider error", model(KindServerError), 0, "provider error · retrying in 4s · attempt 2/3"},
		{"timeout reads timed out", model(KindTimeout), 0, "timed out · retrying in 4s · attempt 2/3"},
		{"connection reads connection lost", model(KindConnection), 0, "connection lost · retrying in 4s · attempt 2/3"},
		{"bad_request reads as a generic failure", model(KindBadRequest), 0, "model call failed · retrying in 4s · attempt 2/3"},
		{"auth reads as a generic failure", model(KindAuth), 0, "model call failed · retrying in 4s · attempt 2/3"},
		{"unknown reads as a generic failure", model(KindUnknown), 0, "model call failed · retrying in 4s · attempt 2/3"},
		{"a kind nobody knows reads as a generic failure", model("quota_exceeded: you owe us $5"), 0, "model call failed · retrying in 4s · attempt 2/3"},
		{"no kind reads as a generic failure", model(""), 0, "model call failed · retrying in 4s · attempt 2/3"},
		{"a model retry after its delay reads retrying now", model(KindTimeout), 5 * time.Second, "timed out · retrying now · attempt 2/3"},
		{"a completed turn", TurnCompleted{TurnID: "t", Terminal: "completed"}, 0, "turn completed"},
		{"a failed turn hides the provider's message", TurnCompleted{TurnID: "t", Terminal: "failed", Error: &TurnError{Kind: "modelError", Message: "secret provider text"}}, 0, "turn failed"},
		{"a schema retry", SchemaRetry{TurnID: "t", Attempt: 1, RetriesRemaining: 1, Iteration: 1, Stage: "schema-validate", Error: "e", CorrectiveMessageHash: "811c9dc5"}, 0, "output rejected (schema-validate) · asking again · 1 retry left"},
		{"an exhausted contract", SchemaExhausted{TurnID: "t", Attempt: 3, Iteration: 3, Stage: "json-parse", Error: "e"}, 0, "output rejected (json-parse) · no retries left"},
		{"a contract broken by middleware", SchemaExhausted{TurnID: "t", Attempt: 1, Iteration: 1, Stage: "schema-validate", Error: "e", BrokenBy: "redact"}, 0, "output rejected (schema-validate) · broken by redact"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ns := appendAll(t, []Event{tt.ev})
			if got := Describe(ns[0], tt.elapsed); got != tt.want {
				t.Errorf("Describe = %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("an unknown method is shown as is", func(t *testing.T) {
		if got, want := Describe(Notification{JSONRPC: "2.0", Method: "item/delta"}, 0), "item/delta"; got != want {
			t.Errorf("Describe = %q, want %q", got, want)
		}
	})
}
