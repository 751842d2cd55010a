package events

import (
	"encoding/json"
	"math"
	"strings"
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
		{"rate_limit reads rate limited", model(KindRateLimit), 0, "attempt 2/3 · retrying in 4s · rate limited"},
		{"overloaded reads provider overloaded", model(KindOverloaded), 0, "attempt 2/3 · retrying in 4s · provider overloaded"},
		{"server_error reads provider error", model(KindServerError), 0, "attempt 2/3 · retrying in 4s · provider error"},
		{"timeout reads timed out", model(KindTimeout), 0, "attempt 2/3 · retrying in 4s · timed out"},
		{"connection reads connection lost", model(KindConnection), 0, "attempt 2/3 · retrying in 4s · connection lost"},
		{"bad_request reads as a generic failure", model(KindBadRequest), 0, "attempt 2/3 · retrying in 4s · model call failed"},
		{"auth reads as a generic failure", model(KindAuth), 0, "attempt 2/3 · retrying in 4s · model call failed"},
		{"unknown reads as a generic failure", model(KindUnknown), 0, "attempt 2/3 · retrying in 4s · model call failed"},
		{"a kind nobody knows reads as a generic failure", model("quota_exceeded: you owe us $5"), 0, "attempt 2/3 · retrying in 4s · model call failed"},
		{"no kind reads as a generic failure", model(""), 0, "attempt 2/3 · retrying in 4s · model call failed"},
		{"a model retry after its delay reads retrying now", model(KindTimeout), 5 * time.Second, "attempt 2/3 · retrying now · timed out"},
		{"a completed turn", TurnCompleted{TurnID: "t", Terminal: "completed"}, 0, "turn completed"},
		{"a failed turn says its kind in words and hides the message", TurnCompleted{TurnID: "t", Terminal: "failed", Error: &TurnError{Kind: "modelError", Message: "secret provider text"}}, 0, "turn failed · model error"},
		{"a turn that hit its step limit says so", TurnCompleted{TurnID: "t", Terminal: TerminalFailed, Error: &TurnError{Kind: FailureStepLimit, Message: "m"}}, 0, "turn failed · step limit reached"},
		{"a turn that needs auth says so", TurnCompleted{TurnID: "t", Terminal: TerminalFailed, Error: &TurnError{Kind: FailureAuthRequired, Message: "m"}}, 0, "turn failed · authentication required"},
		{"a cancelled turn", TurnCompleted{TurnID: "t", Terminal: TerminalCancelled}, 0, "turn cancelled"},
		{"a rejected tool call asks again", ToolCallRejected{TurnID: "t", Call: 1, Iteration: 1, Tool: "lookup", CallID: "c1", Outcome: "retried", Stage: "schema-validate", Error: "e", CorrectiveMessageHash: "811c9dc5"}, 0, "tool call lookup rejected (schema-validate) · asking again"},
		{"a tool call at the limit stops the run", ToolCallRejected{TurnID: "t", Call: 3, Iteration: 3, Tool: "lookup", CallID: "c3", Outcome: "exhausted", Stage: "json-parse", Error: "e"}, 0, "tool call lookup rejected (json-parse) · run stopped"},
		{"a tool call failing the same way again says so", ToolCallRejected{TurnID: "t", Call: 2, Iteration: 2, Tool: "lookup", CallID: "c2", Outcome: "exhausted", Stage: "json-parse", Error: "e", Reason: ExhaustRepeated}, 0, "tool call lookup rejected (json-parse) · same issues again"},
		{"a schema retry", SchemaRetry{TurnID: "t", Attempt: 1, RetriesRemaining: 1, Iteration: 1, Stage: "schema-validate", Error: "e", CorrectiveMessageHash: "811c9dc5"}, 0, "output rejected (schema-validate) · asking again · 1 retry left"},
		{"a schema retry spending the last retry says so", SchemaRetry{TurnID: "t", Attempt: 2, RetriesRemaining: 0, Iteration: 2, Stage: "json-parse", Error: "e", CorrectiveMessageHash: "811c9dc5"}, 0, "output rejected (json-parse) · asking again · last retry"},
		{"a schema retry with retries to spare counts them", SchemaRetry{TurnID: "t", Attempt: 1, RetriesRemaining: 2, Iteration: 1, Stage: "json-parse", Error: "e", CorrectiveMessageHash: "811c9dc5"}, 0, "output rejected (json-parse) · asking again · 2 retries left"},
		{"an exhausted contract", SchemaExhausted{TurnID: "t", Attempt: 3, Iteration: 3, Stage: "json-parse", Error: "e"}, 0, "output rejected (json-parse) · no retries left"},
		{"a contract broken by middleware", SchemaExhausted{TurnID: "t", Attempt: 1, Iteration: 1, Stage: "schema-validate", Error: "e", BrokenBy: "redact"}, 0, "output rejected (schema-validate) · broken by redact"},
		{"an answer that repeated its issues", SchemaExhausted{TurnID: "t", Attempt: 2, Iteration: 2, Stage: "schema-validate", Error: "e", Reason: ExhaustRepeated}, 0, "output rejected (schema-validate) · same issues again"},
		{"an answer beyond repair", SchemaExhausted{TurnID: "t", Attempt: 1, Iteration: 1, Stage: "schema-validate", Error: "e", Reason: ExhaustBeyondRepair}, 0, "output rejected (schema-validate) · beyond repair"},
		{"an answer no validator could judge", SchemaExhausted{TurnID: "t", Attempt: 1, Iteration: 1, Stage: "schema-validate", Error: "e", Reason: ExhaustValidatorFailed}, 0, "output rejected (schema-validate) · validator failed"},
		{"an answer that never came, asked for again", SchemaRetry{TurnID: "t", Attempt: 1, RetriesRemaining: 2, Iteration: 1, Stage: "no-answer", Error: "e", CorrectiveMessageHash: "811c9dc5"}, 0, "output rejected (no-answer) · asking again · 2 retries left"},
		{"a degenerate answer cut and asked again", SchemaRetry{TurnID: "t", Attempt: 1, RetriesRemaining: 1, Iteration: 1, Stage: "degenerate", Error: "e", CorrectiveMessageHash: "811c9dc5", Provider: "openai", Model: "m"}, 0, "output rejected (degenerate) · asking again · 1 retry left"},
		{"a run out of tokens", SchemaExhausted{TurnID: "t", Attempt: 1, Iteration: 1, Stage: "schema-validate", Error: "e", Reason: ExhaustTokenBudget}, 0, "output rejected (schema-validate) · token budget reached"},
		{"a run out of requests", SchemaExhausted{TurnID: "t", Attempt: 1, Iteration: 1, Stage: "degenerate", Error: "e", Reason: ExhaustRequestBudget}, 0, "output rejected (degenerate) · request budget reached"},
		{"a choice's retry names its kind", SchemaRetry{TurnID: "t", Attempt: 1, RetriesRemaining: 1, Iteration: 1, Stage: "schema-validate", Error: "e", CorrectiveMessageHash: "811c9dc5", Kind: "choice"}, 0, "choice rejected (schema-validate) · asking again · 1 retry left"},
		{"a multi-label's retry names its labels", SchemaRetry{TurnID: "t", Attempt: 1, RetriesRemaining: 0, Iteration: 1, Stage: "json-parse", Error: "e", CorrectiveMessageHash: "811c9dc5", Kind: "multi-label"}, 0, "labels rejected (json-parse) · asking again · last retry"},
		{"an exhausted text names its kind", SchemaExhausted{TurnID: "t", Attempt: 2, Iteration: 2, Stage: "schema-validate", Error: "e", Kind: "text"}, 0, "text rejected (schema-validate) · no retries left"},
		{"an exhausted list of elements names its kind", SchemaExhausted{TurnID: "t", Attempt: 2, Iteration: 2, Stage: "schema-validate", Error: "e", Kind: "elements", Reason: ExhaustRepeated}, 0, "elements rejected (schema-validate) · same issues again"},
		{"a newer producer's kind reads as output", SchemaRetry{TurnID: "t", Attempt: 1, RetriesRemaining: 1, Iteration: 1, Stage: "schema-validate", Error: "e", CorrectiveMessageHash: "811c9dc5", Kind: "table"}, 0, "output rejected (schema-validate) · asking again · 1 retry left"},
		{"a union's retry names the member the answer named", SchemaRetry{TurnID: "t", Attempt: 1, RetriesRemaining: 1, Iteration: 1, Stage: "schema-validate", Error: "e", CorrectiveMessageHash: "811c9dc5", Member: "refund"}, 0, "output rejected (schema-validate) · member refund · asking again · 1 retry left"},
		{"a union's exhausted answer names its member", SchemaExhausted{TurnID: "t", Attempt: 2, Iteration: 2, Stage: "schema-validate", Error: "e", Member: "escalation", BrokenBy: "redact"}, 0, "output rejected (schema-validate) · member escalation · broken by redact"},
		{"an answer's rules name each verdict", RulesJudged{TurnID: "t", Attempt: 2, Iteration: 3, Rules: []Ruling{{Rule: "about-paris", Verdict: "failed", Reason: "Lyon"}, {Rule: "no-pii", Verdict: "passed"}}}, 0, "rules on answer 2 · about-paris failed · no-pii passed"},
		{"the input's rules say so", RulesJudged{TurnID: "t", Rules: []Ruling{{Rule: "injection", Verdict: "tripped"}}}, 0, "rules on the input · injection tripped"},
		{"past four rules the rest are counted", RulesJudged{TurnID: "t", Attempt: 1, Iteration: 1, Rules: []Ruling{{Rule: "a", Verdict: "passed"}, {Rule: "b", Verdict: "warned"}, {Rule: "c", Verdict: "fixed"}, {Rule: "d", Verdict: "passed"}, {Rule: "e", Verdict: "passed"}, {Rule: "f", Verdict: "passed"}}}, 0, "rules on answer 1 · a passed · b warned · c fixed · d passed · 2 more"},
		{"a rule's name that is not a name reads unnamed", RulesJudged{TurnID: "t", Attempt: 1, Iteration: 1, Rules: []Ruling{{Rule: "<b>x</b>", Verdict: "passed"}}}, 0, "rules on answer 1 · (unnamed) passed"},
		{"a run out of money", SchemaExhausted{TurnID: "t", Attempt: 1, Iteration: 1, Stage: "json-parse", Error: "e", Reason: ExhaustMoneyBudget}, 0, "output rejected (json-parse) · money budget reached"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ns := appendAll(t, []Event{tt.ev})
			if got := ns[0].Describe(tt.elapsed); got != tt.want {
				t.Errorf("Describe = %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("a frame's member that is no member's name is not shown", func(t *testing.T) {
		n := Notification{JSONRPC: "2.0", Method: MethodSchemaRetry,
			Params: []byte(`{"turnId":"t","attempt":1,"retriesRemaining":1,"stage":"json-parse","member":"pay now at evil.example"}`)}
		if got, want := n.Describe(0), "output rejected (json-parse) · asking again · 1 retry left"; got != want {
			t.Errorf("Describe = %q, want %q", got, want)
		}
	})
	t.Run("a failed turn never shows its message", func(t *testing.T) {
		_, ns := appendAll(t, []Event{TurnCompleted{TurnID: "t", Terminal: TerminalFailed, Error: &TurnError{Kind: FailureModelError, Message: "secret provider text"}}})
		if got := ns[0].Describe(0); strings.Contains(got, "secret") {
			t.Errorf("Describe = %q shows the message", got)
		}
	})
	t.Run("both retry kinds put their fields in one order", func(t *testing.T) {
		_, ns := appendAll(t, []Event{
			TurnRetry{TurnID: "t", Attempt: 2, NextAttempt: 3, MaxAttempts: 3, RetryDelay: 4 * time.Second, Reason: "rate limited"},
			ModelRetry{TurnID: "t", Attempt: 2, NextAttempt: 3, MaxAttempts: 3, RetryDelay: 4 * time.Second, ErrorKind: KindRateLimit},
		})
		got, want := ns[1].Describe(0), ns[0].Describe(0)
		if got != want || want != "attempt 2/3 · retrying in 4s · rate limited" {
			t.Errorf("model retry %q, turn retry %q; want both %q", got, want, "attempt 2/3 · retrying in 4s · rate limited")
		}
	})
	t.Run("an exhausted row of a newer producer's reason reads that the answer stands", func(t *testing.T) {
		n := Notification{JSONRPC: "2.0", Method: MethodSchemaExhausted,
			Params: json.RawMessage(`{"turnId":"t","attempt":1,"iteration":1,"stage":"json-parse","error":"e","reason":"newer"}`)}
		if got, want := n.Describe(0), "output rejected (json-parse) · answer stands"; got != want {
			t.Errorf("Describe = %q, want %q", got, want)
		}
	})
	t.Run("an unknown method is shown as is", func(t *testing.T) {
		if got, want := (Notification{JSONRPC: "2.0", Method: "item/delta"}).Describe(0), "item/delta"; got != want {
			t.Errorf("Describe = %q, want %q", got, want)
		}
	})
}

func TestCountdownNeverOverflows(t *testing.T) {
	tests := []struct {
		delayMs int64
		elapsed time.Duration
		want    string
	}{
		{math.MaxInt64 / int64(time.Millisecond), 0, "retrying in 9223372037s"},
		{math.MaxInt64, -time.Hour, "retrying in 9223372037s"},
		{-5, 0, "retrying now"},
		{4000, 0, "retrying in 4s"},
		{4000, 3001 * time.Millisecond, "retrying in 1s"},
		{4000, 4 * time.Second, "retrying now"},
	}
	for _, tt := range tests {
		if got := countdown(tt.delayMs, tt.elapsed); got != tt.want {
			t.Errorf("countdown(%d, %v) = %q, want %q", tt.delayMs, tt.elapsed, got, tt.want)
		}
	}
}
