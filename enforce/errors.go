package enforce

import (
	"errors"
	"fmt"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/corrective"
	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// Stage names the half of judging that failed.
type Stage string

const (
	// StageJSONParse: the answer is not exactly one JSON value.
	StageJSONParse Stage = "json-parse"
	// StageSchemaValidate: the answer is JSON but breaks the schema.
	StageSchemaValidate Stage = "schema-validate"
	// StageDegenerate: the caller stopped reading a streamed answer that
	// had degenerated into whitespace or repetition ([Degenerate]); it
	// was not judged.
	StageDegenerate Stage = "degenerate"
	// StageNoAnswer: the reply held no answer, only thinking (or reasoning
	// tokens): its reasoning spent it, most often up to the output limit.
	// Nothing was judged; the corrective message asks for the answer
	// ([Thinking]).
	StageNoAnswer Stage = "no-answer"
)

// Issue is one way an answer breaks its contract.
type Issue struct {
	// Path is the JSON Pointer (RFC 6901) of the failing value: "" for the
	// whole answer, "/items/0/qty" for a member. A missing required member
	// or a disallowed extra member is reported at its own pointer
	// ("/city"), not at its parent's. A pointer longer than [MaxQuote]
	// bytes is clipped there, with a marker saying so. To name the whole
	// answer in a message, write "#"+Path, as [SchemaError] writes a
	// location: "#" is the whole answer, "#/items/0/qty" a member.
	Path string `json:"path"`
	// Keyword is the schema keyword that failed ("required", "type", …);
	// the validator's name for a validator's issue ([NewValidator]); "json"
	// for a json-parse issue, "tool" for a reply in text where a call
	// of the answer's tool was due ([Answer.NoCall]), "answer" for a
	// reply with no answer ([StageNoAnswer]), and a rule's name
	// for a [Text]'s ([TextRule]).
	Keyword string `json:"keyword"`
	// Message is the message of what found the issue — gojsonschema,
	// the JSON parser, or a validator ([Validator]) — verbatim up to [MaxQuote]
	// bytes and then clipped, with a marker. It may quote text from the answer:
	// treat it as data.
	Message string `json:"message"`
}

// CheckError is why an answer does not keep its contract. [Schema.Check]
// returns it.
type CheckError struct {
	Stage Stage
	// Issues holds every issue found, sorted by Path, so a single
	// corrective turn can fix them all. It is never empty.
	Issues []Issue
	// Repaired names the repairs applied, in order, before the answer
	// was judged ([Schema.WithRepairs]): the issues are of the mended
	// text. Nil when the answer was judged as written.
	Repaired Repairs
	// byValidators: the answer kept the schema and the issues are its
	// validators' ([Validator]); beyondRepair: one said no retry can fix
	// it ([ErrBeyondRepair]).
	byValidators, beyondRepair bool
	inReasoning                bool // a StageNoAnswer whose answer was in the reasoning
	// tripwire names the first rule of PolicyTripwire that found issues.
	tripwire string
	// form is what kind of json-parse failure it is (jsonvalue.SyntaxError.Form), so the
	// repeat limit can tell a fence from prose; "" at schema-validate.
	form string
	// tooLong: the answer was longer than the contract judges, so none
	// of it was read.
	tooLong bool
	// words are the corrective message's words for an answer of a Kind;
	// nil for a JSON answer's.
	words *corrective.Words
}

// Error returns the stage and the first issue.
func (e *CheckError) Error() string {
	first := e.Issues[0]
	var b strings.Builder
	b.WriteString(string(e.Stage))
	b.WriteString(": ")
	if first.Path != "" {
		b.WriteString(first.Path)
		b.WriteString(": ")
	}
	b.WriteString(first.Message)
	if n := len(e.Issues) - 1; n > 0 {
		fmt.Fprintf(&b, " (and %d more)", n)
	}
	return b.String()
}

// Path is the first issue's JSON Pointer.
func (e *CheckError) Path() string { return e.Issues[0].Path }

// SchemaError is why a schema was refused. [CompileSchema] and [SchemaFor]
// return it for a schema that is not JSON, is not a schema, passes a bound,
// or uses something gojsonschema would check wrongly; [Schema.For] for a
// contract reflected from another type.
type SchemaError struct {
	// Keyword is the offending keyword ("unevaluatedProperties", "$ref", …), or ""
	// when the schema as a whole is at fault.
	Keyword string
	// Location is the JSON Pointer of the offending subschema within the
	// schema document ("" for the root). Error quotes at most MaxQuote
	// bytes of it.
	Location string
	// Reason says what is wrong.
	Reason string
	// Err is the underlying error, if any.
	Err error
}

func (e *SchemaError) Error() string {
	var b strings.Builder
	b.WriteString("enforce: schema refused")
	if e.Keyword != "" {
		fmt.Fprintf(&b, ": keyword %q", e.Keyword)
	}
	if e.Keyword != "" || e.Location != "" {
		fmt.Fprintf(&b, " at %q", "#"+quote(e.Location))
	}
	b.WriteString(": ")
	b.WriteString(jsonvalue.Clip(e.Reason, 4*MaxQuote))
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *SchemaError) Unwrap() error { return e.Err }

// Sentinels that say why enforcement stopped. An *[OutputError] wraps
// ErrBrokenBy when a rewrite broke a valid answer, ErrRepeated,
// [ErrBeyondRepair], [ErrTripwire] or ErrBudget when its Reason says so, and otherwise
// ErrExhausted when retries were opted into.
var (
	// ErrExhausted: the answer failed with no retries left.
	ErrExhausted = errors.New("enforce: output retries exhausted")
	// ErrRepeated: the answer failed with the same issues as the answers
	// before it, as many in a row as the repeat limit allows
	// ([WithRepeatLimit]), so the run stopped without spending its
	// retries: the model is not learning from the correction.
	ErrRepeated = errors.New("enforce: the answer failed as the one before it did")
	// ErrBudget: a budget the caller set was reached — what the failed
	// answers cost ([WithFailedCostBudget], [ReasonBudget]), or a whole
	// run's tokens, requests or money ([Answer.Stop] with a budget's
	// reason) — so the run stopped without spending its retries.
	ErrBudget = errors.New("enforce: over budget")
	// ErrBrokenBy: the model's own answer kept the contract but a rewrite
	// broke it, so the run stopped without spending its retries.
	ErrBrokenBy = errors.New("enforce: a rewrite broke a valid answer")
	// ErrRetries: a retry count outside 0..[MaxRetries].
	ErrRetries = errors.New("enforce: output retries out of range")
)

// OutputError is what a run returns when its final answer does not keep
// the contract, with or without retries: [Schema.Judge], [Ledger.Judge]
// (in [Verdict.Err]), [Loop] and [Schema.Decode] build it.
type OutputError struct {
	Stage  Stage
	Output string // the final answer as it stood
	Path   string // JSON Pointer of the first issue, "" for the whole answer ([Issue.Path])
	// BrokenBy names the rewrite (act-output middleware) that first turned
	// the model's passing answer into a failing one; "" otherwise.
	BrokenBy string
	// Truncated: the answer was truncated at the model's output limit
	// ([Answer.Truncated]).
	Truncated bool
	// Reason says why the run stopped other than by running out of
	// retries: [ReasonRepeated], [ReasonBeyondRepair], [ReasonTripwire] or [ReasonBudget];
	// "" otherwise.
	Reason Reason
	// Rule names the rule whose tripwire stopped the run
	// ([ReasonTripwire]); "" otherwise.
	Rule string
	// Attempts is the ledger, nil when retries were not opted into.
	Attempts []Attempt
	// FailedCost is what the failing answers of Attempts spent
	// ([FailedCost]); zero without rows.
	FailedCost Cost
	// Err is the cause: a *CheckError with every issue. When act-output
	// rewrote an answer the model itself got wrong, it (with Stage and
	// Path) describes the model's own answer, which is what the model
	// was told about; Output is still the answer as it stood.
	Err error
}

func (e *OutputError) Error() string {
	var b strings.Builder
	b.WriteString("enforce: final answer breaks the output contract")
	if e.BrokenBy != "" {
		fmt.Fprintf(&b, " (broken by %q)", e.BrokenBy)
	} else if e.Attempts != nil {
		fmt.Fprintf(&b, " after %d attempt(s)", len(e.Attempts))
	}
	if e.Truncated {
		b.WriteString(" (truncated at the output limit)")
	}
	switch e.Reason {
	case ReasonRepeated:
		b.WriteString(", failing with the same issues as the answer before it: the model is not converging, so no retry was spent")
	case ReasonBeyondRepair:
		b.WriteString(", which a validator found wrong beyond repair")
	case ReasonTripwire:
		fmt.Fprintf(&b, ", which the tripwire of rule %q refused, so no retry was spent", e.Rule)
	case ReasonBudget:
		b.WriteString(", and the failed answers cost more than the budget, so no retry was spent")
	case ReasonTokenBudget, ReasonRequestBudget, ReasonMoneyBudget:
		fmt.Fprintf(&b, ", and the run reached its %s, so no retry was spent", strings.ReplaceAll(string(e.Reason), "-", " "))
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause and the sentinel that says why enforcement
// stopped — ErrBrokenBy when BrokenBy is set, ErrRepeated or
// ErrBeyondRepair or ErrTripwire for those Reasons, else ErrExhausted when retries were
// opted into — so errors.Is and errors.As see both.
func (e *OutputError) Unwrap() []error {
	errs := make([]error, 0, 2)
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	switch {
	case e.BrokenBy != "":
		errs = append(errs, ErrBrokenBy)
	case e.Reason == ReasonRepeated:
		errs = append(errs, ErrRepeated)
	case e.Reason == ReasonBeyondRepair:
		errs = append(errs, ErrBeyondRepair)
	case e.Reason == ReasonTripwire:
		errs = append(errs, ErrTripwire)
	case e.Reason.budget():
		errs = append(errs, ErrBudget)
	case e.Attempts != nil:
		errs = append(errs, ErrExhausted)
	}
	return errs
}

func newOutputError(text string, ce *CheckError, brokenBy string, attempts []Attempt) *OutputError {
	return &OutputError{
		Stage: ce.Stage, Output: text, Path: ce.Path(), BrokenBy: brokenBy,
		Attempts: attempts, FailedCost: FailedCost(attempts), Err: ce,
	}
}
