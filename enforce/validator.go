package enforce

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/enforcer-go/enforcer/enforce/internal/guard"
	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// Validator is a check of an answer's content that a JSON Schema cannot
// say (the date is in the future, the SKU is in the catalogue). Make one
// with [NewValidator]; join it with [Schema.WithValidators]. Validators run
// on answers that keep the schema, in order, where answers are judged
// with a context ([Ledger.Judge], [Loop], [Schema.Judge]; not Check or
// [Schema.Stream]). Their issues, sorted by pointer, fail the answer at
// [StageSchemaValidate] as schema issues do. The zero Validator is
// invalid.
type Validator struct {
	name  string
	check func(ctx context.Context, text string, at Try) ([]Issue, error)
	// at is the member it judges, with pointed ([Validator.At]).
	at      string
	pointed bool
	// policy is what its issues do to the answer ([Validator.OnFail]; ""
	// is PolicyRetry), and fix its rewrite under PolicyFix (rule.go).
	policy Policy
	fix    func(ctx context.Context, value any, issues []Issue) (any, error)
	// prefix judges a text as it streams, for a rule that is prefix-sound
	// (rule_stream.go); nil for one judged only whole.
	prefix newPrefixJudge
	// str finds the messages of a built-in rule's issues in one string
	// (stringRule), so a JSON answer's strings are judged as they close.
	str func(s string) []string
}

// At returns v judging only the member at pointer: its check gets that
// member, and its issues' paths are read from it ("" is the member). It
// is not called on an answer without the member; [Schema.StreamValidating]
// asks it as soon as the member's value closes.
func (v Validator) At(pointer string) Validator {
	v.at, v.pointed = pointer, true
	return v
}

// member returns the text of the member v judges in text, an answer that
// keeps the schema, and whether it has one.
func (v Validator) member(text string) (string, bool) {
	if !v.pointed {
		return text, true
	}
	return jsonvalue.Member(text, v.at)
}

// Try is where an answer stands in its run, as a validator sees it.
type Try struct {
	// Attempt is the answer's 1-based number in the run, as its row will
	// say; 1 for [Schema.Judge], which has no ledger.
	Attempt int
	// RetriesLeft is how many corrective turns may still follow if this
	// answer fails: 0 on the last attempt, and always 0 for
	// [Schema.Judge]. A validator may accept on the last attempt what it
	// would have corrected before. It does not foresee an early stop
	// (the repeat limit, the budget, a second truncated answer).
	RetriesLeft int
}

// ErrBeyondRepair is what a validator returns, with the issues it found
// (or wrapped in an error whose text says what is wrong), to say that no
// corrective turn can fix the answer: the row is exhausted at once with
// [ReasonBeyondRepair], retries unspent, and the *[OutputError] matches
// ErrBeyondRepair.
var ErrBeyondRepair = errors.New("enforce: the answer is wrong beyond repair")

// Validate returns a validator named name (the Keyword of its issues).
// check gets the answer decoded into a T (with T any, the parsed JSON
// value) and where it stands in its run, and returns the issues it found,
// each a JSON Pointer into the answer and a message for the model; no
// issues and a nil error pass. [ErrBeyondRepair] stops the run with the
// answer failing. Any other error, a panic, runtime.Goexit (t.FailNow),
// an answer that does not decode into a T, or an issue without a message
// or a pointer means it could not judge: a *[ValidatorError]. check runs
// on a goroutine of its own; when ctx ends, the caller returns at once
// and a check that ignores ctx is not waited for.
func NewValidator[T any](name string, check func(ctx context.Context, answer T, at Try) ([]Issue, error)) Validator {
	v := Validator{name: name}
	if check == nil {
		return v
	}
	if reflect.TypeFor[T]() == reflect.TypeFor[any]() {
		v.check = func(ctx context.Context, text string, at Try) ([]Issue, error) {
			tree, err := jsonvalue.Parse(text)
			if err != nil {
				return nil, fmt.Errorf("the answer is not JSON: %w", err)
			}
			var answer T
			reflect.ValueOf(&answer).Elem().Set(reflect.ValueOf(&tree).Elem())
			return check(ctx, answer, at)
		}
		return v
	}
	v.check = func(ctx context.Context, text string, at Try) ([]Issue, error) {
		var answer T
		if err := jsonvalue.Unmarshal(text, &answer); err != nil {
			return nil, fmt.Errorf("the answer does not decode into %v: %w", reflect.TypeFor[T](), err)
		}
		return check(ctx, answer, at)
	}
	return v
}

// WithValidators returns a copy of s whose contract also holds vs, after
// the validators s already has. It refuses, with a *[SchemaError], a
// validator without a name or a check (the zero Validator), and a name
// given twice.
func (s *Schema) WithValidators(vs ...Validator) (*Schema, error) {
	all := append(slices.Clip(s.validators), vs...)
	seen := make(map[string]bool, len(all))
	for i, v := range all {
		switch {
		case v.name == "":
			return nil, &SchemaError{Reason: fmt.Sprintf("validator %d has no name (make validators with Validate)", i+1)}
		case v.check == nil:
			return nil, &SchemaError{Reason: fmt.Sprintf("validator %q has no check", v.name)}
		case seen[v.name]:
			return nil, &SchemaError{Reason: fmt.Sprintf("validator name %q given twice: it names the issues, so it must be unique", v.name)}
		}
		if why := v.checkPolicy(s); why != "" {
			return nil, &SchemaError{Reason: why}
		}
		seen[v.name] = true
	}
	c := *s
	c.validators = all
	c.typed = new(sync.Map) // For's copies of c must carry its validators
	return &c, nil
}

// ValidatorError is a validator that could not judge an answer (see
// [NewValidator]): the run stops with no corrective turn. [Ledger.Judge]
// records an exhausted row with [ReasonValidatorFailed] whose Error is
// this error's text. A panic(nil) is a *runtime.PanicNilError, in Panic
// and Err.
type ValidatorError struct {
	Name  string // the validator's name
	Panic any    // the recovered value when it panicked, else nil
	Err   error  // what it returned, or the panic value when that is an error
}

// Error names the validator and says how it failed.
func (e *ValidatorError) Error() string {
	return "enforce: " + e.text()
}

// text is the error without the package prefix, for the row.
func (e *ValidatorError) text() string {
	msg := "validator " + strconv.Quote(e.Name) + " failed: "
	switch {
	case e.Panic != nil:
		return msg + "panic: " + fmt.Sprint(e.Panic)
	case e.Err != nil:
		return msg + e.Err.Error()
	}
	return msg + "no reason given"
}

// Unwrap returns Err, so errors.Is and errors.As see what the validator
// returned or panicked with.
func (e *ValidatorError) Unwrap() error { return e.Err }

// judgement is what judging one answer found.
type judgement struct {
	// ce is the failure to report, nil when the answer as it stands
	// passed: the model's own answer's when that failed too, else the
	// answer's as it stands.
	ce *CheckError
	// brokenBy names the rewrite that first turned the model's passing
	// answer into a failing one.
	brokenBy string
	// failed: a validator could not judge a text.
	failed *ValidatorError
	// stopped: ctx ended while a validator ran; nothing was concluded.
	stopped error
	// text is the answer judged, as the schema's repairs left it, and
	// repaired the repairs that did: of the answer as it stands, or of
	// the model's own when ce describes that.
	text     string
	repaired Repairs
	// rules are the rulings of the validators asked of text, in order.
	rules []Ruling
}

// done reports whether judging must stop at j: a validator failed or ctx
// ended.
func (j judgement) done() bool { return j.failed != nil || j.stopped != nil }

// judgeAnswer judges a as it stands and, when that fails and rewrites
// changed it, the model's own answer too: if that fails as well, its
// failure is the one to report (the model can see and fix its own text);
// if it passes, the rewrite that first broke it is named.
func (s *Schema) judgeAnswer(ctx context.Context, a Answer, at Try) judgement {
	if a.noAnswer() {
		return judgement{ce: s.noAnswerError(a)}
	}
	if a.NoCall {
		return judgement{ce: noCall(a, s.Members())}
	}
	if ce := a.early(); ce != nil {
		return judgement{ce: ce} // recorded as it stands: a rewrite cannot have broken it
	}
	if a.Truncated && s.repairs&(RepairProse|RepairGather) != 0 {
		// What a cut reply went on to write after its values (a
		// correction, another call) is unknown: a second reading cannot
		// be ruled out, so none is taken out of prose.
		s = s.WithRepairs(s.repairs &^ (RepairProse | RepairGather))
	}
	text := a.Text()
	// One answer's judging asks each rule once per value it judges: the
	// answer as it stands, the model's own and each rewrite may share a
	// member, and a rule that asks a model is paid per question.
	var memo ruleMemo
	if len(s.validators) > 0 {
		memo = ruleMemo{}
	}
	j := s.judgeText(ctx, text, at, memo)
	if j.done() || j.ce == nil || len(a.Rewrites) == 0 || a.Given == text {
		return j
	}
	// From here j's text and repairs stay those of the answer as it
	// stands: they describe the answer the rows and errors name.
	own := s.judgeText(ctx, a.Given, at, memo)
	if own.done() || own.ce != nil {
		return own
	}
	prev := a.Given
	for _, rw := range a.Rewrites {
		if rw.Text == prev {
			continue
		}
		step := s.judgeText(ctx, rw.Text, at, memo)
		if step.done() {
			return step
		}
		if step.ce != nil {
			j.brokenBy = rw.By
			return j
		}
		prev = rw.Text
	}
	return j
}

// ruleMemo keeps what each rule found in each value it judged, for the
// judging of one answer.
type ruleMemo map[ruleAsked]ruleFound

// ruleAsked is one question of one answer's judging: the validator (its
// index in the contract) and the value it judged.
type ruleAsked struct {
	rule  int
	value string
}

// ruleFound is a rule's result and what it spent finding it.
type ruleFound struct {
	r  guard.Checked[[]Issue]
	sc *ruleScope
}

// judgeText judges one text: the schema, then, when it passes, the
// validators, each asked once per value memo has not seen.
func (s *Schema) judgeText(ctx context.Context, text string, at Try, memo ruleMemo) judgement {
	text, repaired, err := s.judgeForm(text)
	if err != nil {
		return judgement{ce: err.(*CheckError), text: text, repaired: repaired}
	}
	if len(s.validators) == 0 {
		return judgement{text: text, repaired: repaired}
	}
	var issues []Issue
	var rules []Ruling
	beyond, tripped := false, ""
	for i, v := range s.validators {
		if cause := context.Cause(ctx); cause != nil {
			return judgement{stopped: cause}
		}
		judged, has := v.member(s.validated(text))
		if !has {
			continue // the member it judges is absent
		}
		asked := ruleAsked{i, judged}
		f, seen := memo[asked]
		if !seen {
			f.sc = &ruleScope{}
			vctx := context.WithValue(ctx, ruleScopeKey{}, f.sc)
			f.r = guard.Check(vctx, func() ([]Issue, error) { return v.check(vctx, judged, at) }, isBeyondRepair)
			if f.r.Stopped == nil && memo != nil {
				memo[asked] = f
			}
		}
		r, sc := f.r, f.sc
		vctx := context.WithValue(ctx, ruleScopeKey{}, sc)
		switch {
		case r.Stopped != nil:
			return judgement{stopped: r.Stopped}
		case r.Failed:
			return judgement{failed: &ValidatorError{Name: v.name, Panic: r.Panic, Err: r.Err}, rules: rules}
		}
		found, err := v.found(r)
		if err != nil {
			return judgement{failed: &ValidatorError{Name: v.name, Err: err}, rules: rules}
		}
		if len(found) == 0 {
			rules = append(rules, sc.ruling(v, RulePassed))
			continue
		}
		ru := sc.ruling(v, v.verdict())
		ru.Path, ru.Reason = found[0].Path, found[0].Message
		switch v.policy {
		case PolicyWarn:
			// Recorded, not held against the answer.
		case PolicyFix:
			given := r.Value
			if len(given) == 0 {
				given = []Issue{{Message: found[0].Message}}
			}
			fixedText, failed, stopped := s.fixed(vctx, v, text, given)
			switch {
			case stopped != nil:
				return judgement{stopped: stopped}
			case failed != nil:
				return judgement{failed: failed, rules: append(rules, ru)}
			}
			text = fixedText
		case PolicyTripwire:
			if tripped == "" {
				tripped = v.name
			}
			fallthrough
		default:
			issues = append(issues, found...)
			beyond = beyond || r.Err != nil
		}
		rules = append(rules, ru)
	}
	if len(issues) == 0 {
		return judgement{text: text, repaired: repaired, rules: rules}
	}
	sort.SliceStable(issues, func(i, k int) bool { return issues[i].Path < issues[k].Path })
	ce := &CheckError{Stage: StageSchemaValidate, Issues: issues, Repaired: repaired, byValidators: true, beyondRepair: beyond, tripwire: tripped, words: s.kindWords()}
	return judgement{ce: ce, text: text, repaired: repaired, rules: rules}
}

// found is what v's result r says of the answer: its issues, named for v
// and read from the member it judges, and, when r says [ErrBeyondRepair]
// without one, an issue of the error's text; or why v could not judge
// (an issue the model could not act on).
func (v Validator) found(r guard.Checked[[]Issue]) ([]Issue, error) {
	issues := make([]Issue, 0, len(r.Value)+1)
	for i, is := range r.Value {
		if err := checkIssue(is); err != nil {
			return nil, fmt.Errorf("issue %d: %w", i+1, err)
		}
		issues = append(issues, Issue{Path: quote(v.at + is.Path), Keyword: v.name, Message: quote(is.Message)})
	}
	if r.Err != nil && len(r.Value) == 0 {
		issues = append(issues, Issue{Path: quote(v.at), Keyword: v.name, Message: quote(r.Err.Error())})
	}
	return issues, nil
}

// checkIssue refuses an issue the model could not act on.
func checkIssue(is Issue) error {
	switch {
	case is.Path != "" && !strings.HasPrefix(is.Path, "/"):
		return fmt.Errorf("path %q is not a JSON Pointer (\"\" or starting with \"/\")", jsonvalue.Clip(is.Path, maxIssueQuote))
	case strings.TrimSpace(is.Message) == "":
		return errors.New("no message")
	}
	return nil
}

// isBeyondRepair reports whether a validator's error says [ErrBeyondRepair].
func isBeyondRepair(err error) bool { return errors.Is(err, ErrBeyondRepair) }
