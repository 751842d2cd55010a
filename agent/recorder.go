package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/middleware"
)

// Recorder receives the durable facts of each run as it happens;
// *events.Stream is one. Append must be safe for concurrent use.
type Recorder interface {
	Append(ev events.Event) (events.Notification, error)
}

type turnIDKey struct{}

// ContextWithTurnID sets the turn ID that a run started with ctx records
// its events under. Without it each run makes a random one; either way
// [Result.TurnID] tells it. An ID the stream refuses (see [WithEvents])
// makes Run return an error matching [events.ErrInvalid] before the model
// is called.
func ContextWithTurnID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, turnIDKey{}, id)
}

func turnID(ctx context.Context) string {
	if id, ok := ctx.Value(turnIDKey{}).(string); ok && id != "" {
		return id
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// record appends ev when the agent has a recorder. A failure is logged and
// returned, never raised: recording must not stop the run.
func (a *Agent) record(ev events.Event) (err error) {
	if a.cfg.events == nil {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			a.cfg.logger.Error("recorder panicked; event not recorded", "event", fmt.Sprintf("%T", ev), "panic", r)
			err = fmt.Errorf("recorder panicked: %v", r)
		}
	}()
	if _, err := a.cfg.events.Append(ev); err != nil {
		a.cfg.logger.Warn("event not recorded", "event", fmt.Sprintf("%T", ev), "error", err)
		return err
	}
	return nil
}

// recordTerminal records the turn's terminal. A turn must not stay open on
// the stream, so when the recorder refuses ev it is recorded once more as
// the least it can be: the same terminal, and for a failed turn its error
// kind with words of ours instead of the error's text; no reason, usage or
// timings. A recorder that refuses that too (a closed stream, a broken
// log) leaves the turn open there: the failure is logged. A refusal
// matching [events.ErrUnavailable] is not retried here: an
// *events.Stream keeps that event and appends it itself once the log
// answers, and a second terminal would follow it.
func (a *Agent) recordTerminal(ev events.TurnCompleted) {
	err := a.record(ev)
	if err == nil || errors.Is(err, events.ErrUnavailable) {
		return
	}
	least := events.TurnCompleted{TurnID: ev.TurnID, Terminal: ev.Terminal}
	if ev.Error != nil {
		least.Error = &events.TurnError{Kind: ev.Error.Kind, Message: "the turn failed; its error could not be recorded", Retryable: ev.Error.Retryable}
	}
	a.record(least)
}

func (a *Agent) recordRow(turn string, row enforce.Attempt, retriesLeft int) {
	if row.Rules != nil {
		a.record(events.RulesJudged{TurnID: turn, Attempt: row.Attempt, Iteration: row.Iteration, Rules: eventRulings(*row.Rules)})
	}
	switch row.Outcome {
	case enforce.OutcomeRetried:
		// For clients, a corrective turn is a retry scheduled at once —
		// unless whole-turn retries ([WithTurnRetry]) own the numbering of
		// turn/retryScheduled.
		if a.cfg.turnRetry == nil {
			reason := "answer broke the output contract at " + string(row.Stage)
			if row.Cut != nil {
				reason = "answer cut early at " + string(row.Stage)
			}
			if row.Path != "" {
				reason += " " + row.Path
			}
			if row.Truncated {
				reason = "answer truncated at the output limit; " + reason
			}
			a.record(events.TurnRetry{
				TurnID: turn, Attempt: row.Attempt, NextAttempt: row.Attempt + 1,
				MaxAttempts: a.cfg.retries + 1, Reason: reason, Kind: events.RetryCorrective,
			})
		}
		a.record(events.SchemaRetry{
			TurnID: turn, Attempt: row.Attempt, RetriesRemaining: retriesLeft, Iteration: row.Iteration,
			Stage: string(row.Stage), Error: row.Error, Path: row.Path, CorrectiveMessageHash: row.CorrectiveMessageHash,
			InputTokens: row.InputTokens, OutputTokens: row.OutputTokens, CachedTokens: row.CachedTokens, ReasoningTokens: row.ReasoningTokens,
			Repaired: repairNames(row.Repaired), Provider: row.Provider, Model: row.Model,
			Kind: string(row.Kind), Member: row.Member,
		})
	case enforce.OutcomeExhausted:
		a.record(events.SchemaExhausted{
			TurnID: turn, Attempt: row.Attempt, Iteration: row.Iteration,
			Stage: string(row.Stage), Error: row.Error, Path: row.Path, BrokenBy: row.BrokenBy,
			Reason: events.ExhaustReason(row.Reason), InputTokens: row.InputTokens, OutputTokens: row.OutputTokens,
			CachedTokens: row.CachedTokens, ReasoningTokens: row.ReasoningTokens, Repaired: repairNames(row.Repaired),
			Provider: row.Provider, Model: row.Model, Kind: string(row.Kind), Member: row.Member,
		})
	}
}

// inputRuled puts the input rules' rulings on the result and the stream.
func (st *runState) inputRuled(rs []enforce.Ruling) {
	if len(rs) == 0 {
		return
	}
	st.res.InputRules = rs
	st.a.record(events.RulesJudged{TurnID: st.turn, Rules: eventRulings(rs)})
}

// eventRulings are rs as the session stream says them.
func eventRulings(rs []enforce.Ruling) []events.Ruling {
	out := make([]events.Ruling, len(rs))
	for i, r := range rs {
		out[i] = events.Ruling{
			Rule: r.Rule, Verdict: string(r.Verdict), Path: r.Path, Reason: r.Reason, Provider: r.Provider, Model: r.Model,
			InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CachedTokens: r.CachedTokens, ReasoningTokens: r.ReasoningTokens, Money: r.Money,
		}
	}
	return out
}

// repairNames are the names of rs in order, nil for none.
func repairNames(rs enforce.Repairs) []string {
	if rs == 0 {
		return nil
	}
	return strings.Split(rs.String(), ",")
}

// completed folds a run's end into its terminal event.
func completed(ctx context.Context, turn string, res *Result, err error) events.TurnCompleted {
	ev := events.TurnCompleted{TurnID: turn, Terminal: events.TerminalCompleted}
	if u := res.Usage; u.Detailed {
		// The wire's usage needs all four counts: unknown usage is absent,
		// not zero.
		ev.Usage = &events.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CachedTokens: u.CachedTokens, ReasoningTokens: u.ReasoningTokens}
	}
	if err == nil {
		return ev
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		ev.Terminal = events.TerminalCancelled
		return ev
	}
	ev.Terminal = events.TerminalFailed
	te := &events.TurnError{Kind: events.FailureModelError, Message: err.Error()}
	var pe *ProviderError
	var de *middleware.DeniedError
	var re *RefusalError
	var ve *enforce.ValidatorError
	var ie *InputRuleError
	switch {
	case errors.Is(err, ErrMaxIterations):
		te.Kind = events.FailureStepLimit
	case errors.Is(err, ErrInvalidOption):
		te.Kind = events.FailureConfigError
	case errors.As(err, &pe):
		te.Message = retryReason(pe) // the provider's own message stays off the stream
		te.Retryable = pe.Retryable()
		if pe.Kind == events.KindAuth {
			te.Kind = events.FailureAuthRequired
		}
	case errors.As(err, &de), errors.As(err, &ve), errors.As(err, &ie): // our side stopped it, not the model
		te.Kind = events.FailureEnvironmentError
	case errors.As(err, &re):
		te.Message = re.Error() // the kind in our words; the model's text stays off the stream
	}
	ev.Error = te
	return ev
}

// retryReason is the turn/retryScheduled reason for err: our words for
// provider failures, whose own message is not shown to users.
func retryReason(err error) string {
	var pe *ProviderError
	if errors.As(err, &pe) {
		r := "model call failed: " + string(pe.Kind)
		if status := pe.status(); status != 0 {
			r += fmt.Sprintf(" (HTTP %d)", status)
		}
		return r
	}
	return err.Error()
}
