package events

import (
	"slices"
	"time"

	"github.com/enforcer-go/enforcer/internal/exhaust"
)

// MethodSchemaExhausted is the method [SchemaExhausted] folds to.
const MethodSchemaExhausted Method = "output/schemaExhausted"

// SchemaExhausted is the ledger event output_schema_exhausted: a final
// answer broke the output contract and the answer stands (no retries left,
// BrokenBy names the middleware whose rewrite broke a passing answer, or
// Reason says why no retry was spent). Record kind
// output_schema_exhausted; folds to output/schemaExhausted. Describe reads
// "output rejected (json-parse) · no retries left", "output rejected
// (schema-validate) · broken by <middleware>", or with a Reason "… · same
// issues again", "… · beyond repair", "… · validator failed", "… · over
// budget", "… · token budget reached" (and so for requests and money),
// "… · tripwire";
// the kind and the member as [SchemaRetry]'s line says them.
type SchemaExhausted struct {
	TurnID    string `json:"turnId"`
	Attempt   int    `json:"attempt"`   // >= 1
	Iteration int    `json:"iteration"` // >= 1
	Stage     string `json:"stage"`
	Error     string `json:"error"`
	Path      string `json:"path,omitempty"`
	BrokenBy  string `json:"brokenBy,omitempty"`
	// Reason says why the answer stands although retries were left; empty
	// when they ran out (or BrokenBy says why).
	Reason ExhaustReason `json:"reason,omitempty"`
	// InputTokens and OutputTokens (CachedTokens among the first,
	// ReasoningTokens among the second) are what the model call that gave
	// the answer spent, as its row says; zero is unknown and left off the
	// wire.
	InputTokens     int `json:"inputTokens,omitempty"`
	OutputTokens    int `json:"outputTokens,omitempty"`
	CachedTokens    int `json:"cachedTokens,omitempty"`
	ReasoningTokens int `json:"reasoningTokens,omitempty"`
	// Repaired names the repairs applied to the answer before it was
	// judged (enforce.Attempt.Repaired), in order; absent when none were.
	Repaired []string `json:"repaired,omitempty"`
	// Provider and Model name the model that wrote the answer, as its
	// row does (enforce.Attempt.Model); absent when unknown.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// Kind and Member are as [SchemaRetry]'s: the answer's output kind
	// and the union member it named, each absent when there is none.
	Kind   string `json:"kind,omitempty"`
	Member string `json:"member,omitempty"`
}

// ExhaustReason is why a [SchemaExhausted] answer stands with retries
// left: the row's reason, with the values of enforce.Reason. The set is
// closed: Append refuses any other non-empty reason.
type ExhaustReason string

// The exhaust reasons.
const (
	// ExhaustRepeated ("repeated"): the answer failed with the same issues as the
	// answer before it, so a correction was not heeded.
	ExhaustRepeated ExhaustReason = exhaust.Repeated
	// ExhaustBeyondRepair ("beyond-repair"): a validator said no correction can fix it.
	ExhaustBeyondRepair ExhaustReason = exhaust.BeyondRepair
	// ExhaustValidatorFailed ("validator-failed"): a validator could not judge the answer.
	ExhaustValidatorFailed ExhaustReason = exhaust.ValidatorFailed
	// ExhaustBudget ("budget"): the failed answers cost more than the run's budget.
	ExhaustBudget ExhaustReason = exhaust.Budget
	// ExhaustTokenBudget ("token-budget"), ExhaustRequestBudget
	// ("request-budget"), ExhaustMoneyBudget ("money-budget"): the whole
	// run reached its cap on tokens, model requests or money.
	ExhaustTokenBudget   ExhaustReason = exhaust.TokenBudget
	ExhaustRequestBudget ExhaustReason = exhaust.RequestBudget
	ExhaustMoneyBudget   ExhaustReason = exhaust.MoneyBudget
	// ExhaustTripwire ("tripwire"): a rule whose policy is to end the
	// run at once found issues in the answer.
	ExhaustTripwire ExhaustReason = exhaust.Tripwire
)

var kindSchemaExhausted = register("output_schema_exhausted", MethodSchemaExhausted, false, decodePlain[SchemaExhausted])

func (SchemaExhausted) info() *kind    { return kindSchemaExhausted }
func (e SchemaExhausted) turn() string { return e.TurnID }

func (e SchemaExhausted) check() (Event, error) {
	if err := checkLedger("output_schema_exhausted", e.TurnID, e.Attempt, e.Iteration, e.Stage, e.Error); err != nil {
		return nil, err
	}
	if e.Reason != "" && !slices.Contains(exhaust.Reasons, string(e.Reason)) {
		return nil, invalid("output_schema_exhausted: reason %q is not one of %v", e.Reason, exhaust.Reasons)
	}
	if err := checkRepaired("output_schema_exhausted", e.Repaired); err != nil {
		return nil, err
	}
	if err := checkKind("output_schema_exhausted", e.Kind, e.Member); err != nil {
		return nil, err
	}
	if e.InputTokens < 0 || e.OutputTokens < 0 || e.CachedTokens < 0 || e.ReasoningTokens < 0 {
		return nil, invalid("output_schema_exhausted: negative token count")
	}
	e.Error, e.Path, e.BrokenBy = text(e.Error), text(e.Path), text(e.BrokenBy)
	e.Provider, e.Model = text(e.Provider), text(e.Model)
	return e, checkIDs("output_schema_exhausted", e.TurnID)
}

func (e SchemaExhausted) wire(w *jw) {
	w.str("turnId", e.TurnID)
	w.int("attempt", int64(e.Attempt))
	w.int("iteration", int64(e.Iteration))
	w.str("stage", e.Stage)
	w.str("error", e.Error)
	w.strOpt("path", e.Path)
	w.strOpt("brokenBy", e.BrokenBy)
	w.strOpt("reason", string(e.Reason))
	w.intOpt("inputTokens", int64(e.InputTokens))
	w.intOpt("outputTokens", int64(e.OutputTokens))
	w.intOpt("cachedTokens", int64(e.CachedTokens))
	w.intOpt("reasoningTokens", int64(e.ReasoningTokens))
	w.strsOpt("repaired", e.Repaired)
	w.strOpt("provider", e.Provider)
	w.strOpt("model", e.Model)
	w.strOpt("kind", e.Kind)
	w.strOpt("member", e.Member)
}

func (e SchemaExhausted) describe(time.Duration) string {
	why := "no retries left"
	switch {
	case e.BrokenBy != "":
		why = "broken by " + e.BrokenBy
	case e.Reason != "":
		why = e.Reason.words()
	}
	return rejected(e.Kind, e.Stage, e.Member) + " · " + why
}

// exhaustReasons are the words of the known exhaust reasons.
var exhaustReasons = map[ExhaustReason]string{
	ExhaustRepeated:        "same issues again",
	ExhaustBeyondRepair:    "beyond repair",
	ExhaustValidatorFailed: "validator failed",
	ExhaustBudget:          "over budget",
	ExhaustTokenBudget:     "token budget reached",
	ExhaustRequestBudget:   "request budget reached",
	ExhaustMoneyBudget:     "money budget reached",
	ExhaustTripwire:        "tripwire",
}

// words is r for people; a newer producer's reason reads "answer stands".
func (r ExhaustReason) words() string {
	if w, ok := exhaustReasons[r]; ok {
		return w
	}
	return "answer stands"
}
