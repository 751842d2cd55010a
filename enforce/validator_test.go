package enforce_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/fnv"
)

const skuSchema = `{"type": "object", "required": ["sku", "qty"], "additionalProperties": false,
	"properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}, "amount": {"type": "number"}}}`

type order struct {
	SKU    string  `json:"sku"`
	Qty    int     `json:"qty"`
	Amount float64 `json:"amount,omitempty"`
}

// catalogue knows one SKU.
var catalogue = enforce.NewValidator(
	"catalogue", func(_ context.Context, o order, _ enforce.Try) ([]enforce.Issue, error) {
		if o.SKU != "A-1" {
			return []enforce.Issue{{Path: "/sku", Message: "SKU " + o.SKU + " is not in the catalogue"}}, nil
		}
		return nil, nil
	})

// stock allows at most 5 of anything.
var stock = enforce.NewValidator(
	"stock", func(_ context.Context, o order, _ enforce.Try) ([]enforce.Issue, error) {
		if o.Qty > 5 {
			return []enforce.Issue{{Path: "/qty", Message: "only 5 in stock"}}, nil
		}
		return nil, nil
	})

func orderLedger(t *testing.T, retries int, vs ...enforce.Validator) *enforce.Ledger {
	t.Helper()
	l, err := enforce.NewLedger(withValidators(t, mustCompile(t, skuSchema), vs...), retries)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// repeatLedger is orderLedger with the repeat limit at 2.
func repeatLedger(t *testing.T, retries int, vs ...enforce.Validator) *enforce.Ledger {
	t.Helper()
	l, err := enforce.NewLedger(withValidators(t, mustCompile(t, skuSchema), vs...), retries, enforce.WithRepeatLimit(2))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestValidatorIssuesJoinTheCorrectiveTurnSortedByPointer(t *testing.T) {
	// catalogue runs first, but stock's pointer sorts first.
	l := orderLedger(t, 2, catalogue, stock)
	v := l.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: `{"sku": "Z-9", "qty": 7}`})

	want := enforce.Attempt{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageSchemaValidate,
		Error: "only 5 in stock", Path: "/qty", CorrectiveMessageHash: fnv.Hex32a(v.Corrective)}
	if got := withoutRules(v.Row); got != want {
		t.Errorf("row = %+v, want %+v", got, want)
	}
	wantRules := []enforce.Ruling{
		{Rule: "catalogue", Verdict: enforce.RuleFailed, Path: "/sku", Reason: "SKU Z-9 is not in the catalogue"},
		{Rule: "stock", Verdict: enforce.RuleFailed, Path: "/qty", Reason: "only 5 in stock"},
	}
	if got := rules(v.Row); !reflect.DeepEqual(got, wantRules) {
		t.Errorf("rules = %+v, want %+v", got, wantRules)
	}
	if v.Err != nil {
		t.Errorf("Err = %v, want nil", v.Err)
	}
	wantMsg := `Your previous answer did not satisfy the required output format. This was attempt 1 of 3.
Stage: schema-validate — the answer matches the JSON Schema, but checks of its content failed.
Reply with only the corrected JSON value, nothing else.
The 2 issues follow, each pointer and message quoted as data:
- at "/qty": "only 5 in stock"
- at "/sku": "SKU Z-9 is not in the catalogue"`
	if v.Corrective != wantMsg {
		t.Errorf("corrective message:\n%s\nwant\n%s", v.Corrective, wantMsg)
	}
}

func TestValidatorIssuesCarryTheValidatorsNameAsKeyword(t *testing.T) {
	s := withValidators(t, mustCompile(t, skuSchema), catalogue, stock)
	err := s.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: `{"sku": "Z-9", "qty": 7}`})
	var oe *enforce.OutputError
	if !errors.As(err, &oe) {
		t.Fatalf("Judge = %v, want *enforce.OutputError", err)
	}
	if oe.Attempts != nil || oe.Stage != enforce.StageSchemaValidate || oe.Path != "/qty" {
		t.Errorf("OutputError = %+v, want nil Attempts, schema-validate at /qty", oe)
	}
	var ce *enforce.CheckError
	errors.As(err, &ce)
	want := []enforce.Issue{
		{Path: "/qty", Keyword: "stock", Message: "only 5 in stock"},
		{Path: "/sku", Keyword: "catalogue", Message: "SKU Z-9 is not in the catalogue"},
	}
	if !reflect.DeepEqual(ce.Issues, want) {
		t.Errorf("issues = %+v, want %+v", ce.Issues, want)
	}
	if errors.Is(err, enforce.ErrExhausted) || errors.Is(err, enforce.ErrBeyondRepair) {
		t.Errorf("Judge's error %v matches a ledger's sentinel", err)
	}
	if err := s.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: `{"sku": "A-1", "qty": 2}`}); err != nil {
		t.Errorf("Judge of a good answer = %v", err)
	}
}

func TestValidatorsRunOnlyOnAnswersThatKeepTheSchema(t *testing.T) {
	calls := 0
	counter := enforce.NewValidator("counter", func(context.Context, any, enforce.Try) ([]enforce.Issue, error) {
		calls++
		return nil, nil
	})
	l := orderLedger(t, 2, counter)
	for _, answer := range []string{`not json`, `{"sku": 1, "qty": 1}`} {
		if v := l.Judge(t.Context(), enforce.Answer{Given: answer}); v.Row.Outcome != enforce.OutcomeRetried {
			t.Fatalf("%s: outcome %q, want retried", answer, v.Row.Outcome)
		}
	}
	if calls != 0 {
		t.Errorf("the validator ran %d times on answers that broke the schema", calls)
	}
	if v := l.Judge(t.Context(), enforce.Answer{Given: `{"sku": "A-1", "qty": 1}`}); v.Row.Outcome != enforce.OutcomePassed || calls != 1 {
		t.Errorf("outcome %q after %d calls, want passed after 1", v.Row.Outcome, calls)
	}
}

func TestAnUntypedValidatorSeesTheParsedValue(t *testing.T) {
	var got any
	v := enforce.NewValidator("peek", func(_ context.Context, answer any, _ enforce.Try) ([]enforce.Issue, error) {
		got = answer
		return nil, nil
	})
	s := withValidators(t, mustCompile(t, skuSchema), v)
	if err := s.Judge(t.Context(), enforce.Answer{Given: `{"sku": "A-1", "qty": 3, "amount": 0.1}`}); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"sku": "A-1", "qty": json.Number("3"), "amount": json.Number("0.1")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the validator saw %#v, want %#v", got, want)
	}

	got = "unset"
	if err := withValidators(t, mustCompile(t, `{}`), v).Judge(t.Context(), enforce.Answer{Given: `null`}); err != nil {
		t.Fatal(err)
	}
	if got != nil {
		t.Errorf("the validator saw %#v for null, want nil", got)
	}
}

func TestValidatorsSeeTheAttemptAndTheRetriesLeft(t *testing.T) {
	var seen []enforce.Try
	spy := enforce.NewValidator("spy", func(_ context.Context, _ any, at enforce.Try) ([]enforce.Issue, error) {
		seen = append(seen, at)
		if at.RetriesLeft > 0 {
			return []enforce.Issue{{Path: "/sku", Message: "try again " + strings.Repeat("!", at.Attempt)}}, nil
		}
		return nil, nil // accepted on the last attempt
	})
	s := withValidators(t, mustCompile(t, skuSchema), spy)
	m := &script{answers: []string{`{"sku": "A-1", "qty": 1}`, `{"sku": "A-1", "qty": 2}`, `{"sku": "A-1", "qty": 3}`}}
	answer, rows, err := enforce.Loop(t.Context(), s, 2, m.produce, enforce.WithRepeatLimit(0))
	if err != nil {
		t.Fatal(err)
	}
	if answer != m.answers[2] {
		t.Errorf("answer = %q, want the third", answer)
	}
	if got, want := outcomes(rows), []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomeRetried, enforce.OutcomePassed}; !reflect.DeepEqual(got, want) {
		t.Errorf("outcomes = %v, want %v", got, want)
	}
	if want := []enforce.Try{{Attempt: 1, RetriesLeft: 2}, {Attempt: 2, RetriesLeft: 1}, {Attempt: 3, RetriesLeft: 0}}; !reflect.DeepEqual(seen, want) {
		t.Errorf("the validator saw %+v, want %+v", seen, want)
	}

	t.Run("an answer after which no iteration is left is the last attempt", func(t *testing.T) {
		seen = nil
		l, _ := enforce.NewLedger(s, 2)
		l.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: `{"sku": "A-1", "qty": 1}`, Last: true})
		if want := []enforce.Try{{Attempt: 1, RetriesLeft: 0}}; !reflect.DeepEqual(seen, want) {
			t.Errorf("the validator saw %+v, want %+v", seen, want)
		}
	})
	t.Run("Schema.Judge is attempt 1 with no retries", func(t *testing.T) {
		seen = nil
		_ = s.Judge(t.Context(), enforce.Answer{Iteration: 4, Given: `{"sku": "A-1", "qty": 1}`})
		if want := []enforce.Try{{Attempt: 1, RetriesLeft: 0}}; !reflect.DeepEqual(seen, want) {
			t.Errorf("the validator saw %+v, want %+v", seen, want)
		}
	})
}

func TestAValidatorMaySayAnAnswerIsBeyondRepair(t *testing.T) {
	discontinued := enforce.NewValidator("discontinued", func(_ context.Context, o order, _ enforce.Try) ([]enforce.Issue, error) {
		if o.SKU == "OLD-1" {
			return []enforce.Issue{{Path: "/sku", Message: "OLD-1 is discontinued"}}, enforce.ErrBeyondRepair
		}
		if o.SKU == "OLD-2" {
			return nil, errors.Join(errors.New("OLD-2 was recalled"), enforce.ErrBeyondRepair)
		}
		return nil, nil
	})
	tests := []struct {
		name, answer, wantError, wantPath string
	}{
		{"with its issues", `{"sku": "OLD-1", "qty": 1}`, "OLD-1 is discontinued", "/sku"},
		{"with no issues, in the error's words at the root", `{"sku": "OLD-2", "qty": 1}`, "OLD-2 was recalled\nenforce: the answer is wrong beyond repair", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := orderLedger(t, 3, discontinued, stock)
			v := l.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: tt.answer})
			want := enforce.Attempt{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeExhausted, Stage: enforce.StageSchemaValidate,
				Error: tt.wantError, Path: tt.wantPath, Reason: enforce.ReasonBeyondRepair}
			if got := withoutRules(v.Row); got != want {
				t.Errorf("row = %+v, want %+v", got, want)
			}
			if v.Corrective != "" {
				t.Errorf("a corrective message was written for an answer beyond repair")
			}
			if got := l.RetriesLeft(); got != 3 {
				t.Errorf("RetriesLeft() = %d, want 3 unspent", got)
			}
			var oe *enforce.OutputError
			if !errors.As(v.Err, &oe) || oe.Reason != enforce.ReasonBeyondRepair {
				t.Fatalf("Err = %v, want an *OutputError with Reason beyond-repair", v.Err)
			}
			if !errors.Is(v.Err, enforce.ErrBeyondRepair) || errors.Is(v.Err, enforce.ErrExhausted) {
				t.Errorf("Err = %v, want ErrBeyondRepair and not ErrExhausted", v.Err)
			}
		})
	}
	t.Run("without a ledger Judge says so too", func(t *testing.T) {
		s := withValidators(t, mustCompile(t, skuSchema), discontinued)
		err := s.Judge(t.Context(), enforce.Answer{Given: `{"sku": "OLD-1", "qty": 1}`})
		var oe *enforce.OutputError
		if !errors.As(err, &oe) || oe.Attempts != nil || !errors.Is(err, enforce.ErrBeyondRepair) {
			t.Errorf("Judge = %v, want an *OutputError with nil Attempts matching ErrBeyondRepair", err)
		}
	})
}

func TestAValidatorThatFailsEndsTheRunWithAValidatorError(t *testing.T) {
	down := errors.New("catalogue service unavailable")
	tests := []struct {
		name      string
		v         enforce.Validator
		wantErr   error // matched with errors.Is (errors.As for a *runtime.PanicNilError), when set
		wantPanic bool
		wantError string // the row's Error
	}{
		{"an error", enforce.NewValidator("catalogue", func(context.Context, order, enforce.Try) ([]enforce.Issue, error) {
			return nil, down
		}), down, false, `validator "catalogue" failed: catalogue service unavailable`},
		{"a panic", enforce.NewValidator("catalogue", func(context.Context, order, enforce.Try) ([]enforce.Issue, error) {
			var m map[string]int
			m["x"]++
			return nil, nil
		}), nil, true, `validator "catalogue" failed: panic: assignment to entry in nil map`},
		{"a runtime.Goexit, as t.FailNow or require.* in a validator calls", enforce.NewValidator("catalogue", func(context.Context, order, enforce.Try) ([]enforce.Issue, error) {
			runtime.Goexit()
			return nil, nil
		}), nil, false, `validator "catalogue" failed: called runtime.Goexit (as t.FailNow and testify's require.* do) instead of returning`},
		{"a panic(nil)", enforce.NewValidator("catalogue", func(context.Context, order, enforce.Try) ([]enforce.Issue, error) {
			panic(nil)
		}), new(runtime.PanicNilError), true, `validator "catalogue" failed: panic: ` + new(runtime.PanicNilError).Error()},
		{"an issue whose path is not a JSON Pointer", enforce.NewValidator("catalogue", func(context.Context, order, enforce.Try) ([]enforce.Issue, error) {
			return []enforce.Issue{{Path: "sku", Message: "unknown"}}, nil
		}), nil, false, `validator "catalogue" failed: issue 1: path "sku" is not a JSON Pointer ("" or starting with "/")`},
		{"an issue without a message", enforce.NewValidator("catalogue", func(context.Context, order, enforce.Try) ([]enforce.Issue, error) {
			return []enforce.Issue{{Path: "/sku"}}, nil
		}), nil, false, `validator "catalogue" failed: issue 1: no message`},
		{"an answer that does not decode into its type", enforce.NewValidator("catalogue", func(context.Context, []string, enforce.Try) ([]enforce.Issue, error) {
			return nil, nil
		}), nil, false, `validator "catalogue" failed: the answer does not decode into []string: json: cannot unmarshal object into Go value of type []string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := orderLedger(t, 2, tt.v)
			v := l.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: `{"sku": "A-1", "qty": 1}`})
			want := enforce.Attempt{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeExhausted, Stage: enforce.StageSchemaValidate,
				Error: tt.wantError, Reason: enforce.ReasonValidatorFailed}
			if v.Row != want {
				t.Errorf("row = %+v, want %+v", v.Row, want)
			}
			var ve *enforce.ValidatorError
			if !errors.As(v.Err, &ve) || ve.Name != "catalogue" {
				t.Fatalf("Err = %v, want a *ValidatorError naming the validator", v.Err)
			}
			if pn, ok := tt.wantErr.(*runtime.PanicNilError); ok {
				if !errors.As(v.Err, &pn) {
					t.Errorf("Err = %v, want it to wrap a *runtime.PanicNilError", v.Err)
				}
			} else if tt.wantErr != nil && !errors.Is(v.Err, tt.wantErr) {
				t.Errorf("Err = %v, want it to wrap %v", v.Err, tt.wantErr)
			}
			if got := ve.Panic != nil; got != tt.wantPanic {
				t.Errorf("Panic = %v, want a panic value: %v", ve.Panic, tt.wantPanic)
			}
			if l.RetriesLeft() != 2 || v.Corrective != "" {
				t.Errorf("a failed validator spent a retry or wrote a corrective message")
			}
			if err := withValidators(t, mustCompile(t, skuSchema), tt.v).Judge(t.Context(), enforce.Answer{Given: `{"sku": "A-1", "qty": 1}`}); !errors.As(err, &ve) {
				t.Errorf("Schema.Judge = %v, want a *ValidatorError", err)
			}
		})
	}
}

func TestJudgeReturnsTheCauseWhenTheContextEndsWhileAValidatorRuns(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(release) })
	stubborn := enforce.NewValidator("stubborn", func(context.Context, any, enforce.Try) ([]enforce.Issue, error) {
		close(started)
		<-release // ignores its context
		return nil, nil
	})
	stop := errors.New("user pressed stop")
	ctx, cancel := context.WithCancelCause(t.Context())
	go func() {
		<-started
		cancel(stop)
	}()
	l := orderLedger(t, 2, stubborn)
	v := l.Judge(ctx, enforce.Answer{Iteration: 1, Given: `{"sku": "A-1", "qty": 1}`})
	if !errors.Is(v.Err, stop) {
		t.Errorf("Err = %v, want the cause %v", v.Err, stop)
	}
	if v.Row != (enforce.Attempt{}) || len(l.Attempts()) != 0 {
		t.Errorf("row = %+v, rows = %+v, want none", v.Row, l.Attempts())
	}
}

func TestLoopStopsWhenTheContextEndsWhileAValidatorRuns(t *testing.T) {
	stop := errors.New("user pressed stop")
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	v := enforce.NewValidator("cancel", func(ctx context.Context, _ any, _ enforce.Try) ([]enforce.Issue, error) {
		cancel(stop)
		return nil, context.Cause(ctx)
	})
	s := withValidators(t, mustCompile(t, skuSchema), v)
	m := &script{answers: []string{`{"sku": "A-1", "qty": 1}`}}
	_, rows, err := enforce.Loop(ctx, s, 2, m.produce)
	if !errors.Is(err, stop) {
		t.Errorf("err = %v, want the cause", err)
	}
	var ve *enforce.ValidatorError
	if errors.As(err, &ve) || len(rows) != 0 {
		t.Errorf("err = %v, rows = %+v: a cancelled validator is no failure and has no row", err, rows)
	}
}

func TestWithValidatorsRefusesValidatorsItCannotName(t *testing.T) {
	s := mustCompile(t, skuSchema)
	ok := func(context.Context, any, enforce.Try) ([]enforce.Issue, error) { return nil, nil }
	tests := []struct {
		name string
		vs   []enforce.Validator
	}{
		{"the zero Validator", []enforce.Validator{{}}},
		{"a validator without a name", []enforce.Validator{enforce.NewValidator("", ok)}},
		{"a validator without a check", []enforce.Validator{enforce.NewValidator[any]("x", nil)}},
		{"a name given twice", []enforce.Validator{enforce.NewValidator("x", ok), enforce.NewValidator("x", ok)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := s.WithValidators(tt.vs...)
			var se *enforce.SchemaError
			if !errors.As(err, &se) || c != nil {
				t.Errorf("WithValidators = (%v, %v), want a *SchemaError", c, err)
			}
		})
	}
	t.Run("a name already joined is refused too", func(t *testing.T) {
		c := withValidators(t, s, enforce.NewValidator("x", ok))
		if _, err := c.WithValidators(enforce.NewValidator("x", ok)); err == nil {
			t.Error("WithValidators accepted a name the contract already has")
		}
	})
	t.Run("the original contract is left as it was", func(t *testing.T) {
		withValidators(t, s, catalogue)
		if err := s.Judge(t.Context(), enforce.Answer{Given: `{"sku": "Z-9", "qty": 1}`}); err != nil {
			t.Errorf("the schema without validators failed an answer: %v", err)
		}
	})
}

func TestValidatorsSurviveForAndCheckIgnoresThem(t *testing.T) {
	s := withValidators(t, mustCompile(t, skuSchema), catalogue)
	typed, err := s.For(reflect.TypeFor[order]())
	if err != nil {
		t.Fatal(err)
	}
	bad := `{"sku": "Z-9", "qty": 1}`
	if err := typed.Judge(t.Context(), enforce.Answer{Given: bad}); err == nil {
		t.Error("For's copy lost the validators")
	}
	if err := typed.Check(bad); err != nil {
		t.Errorf("Check = %v, want nil: it judges the schema alone", err)
	}
}

// A rewrite that turns an answer the validators accept into one they
// refuse is named, exactly as one that breaks the schema.
func TestBrokenByCountsValidators(t *testing.T) {
	l := orderLedger(t, 2, catalogue)
	v := l.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: `{"sku": "A-1", "qty": 1}`, Rewrites: []enforce.Rewrite{
		{By: "compact", Text: `{"sku":"A-1","qty":1}`},
		{By: "rename-sku", Text: `{"sku":"a1","qty":1}`},
	}})
	if v.Row.Outcome != enforce.OutcomeExhausted || v.Row.BrokenBy != "rename-sku" || v.Row.Path != "/sku" {
		t.Errorf("row = %+v, want exhausted, broken by rename-sku at /sku", v.Row)
	}
	if !errors.Is(v.Err, enforce.ErrBrokenBy) || l.RetriesLeft() != 2 {
		t.Errorf("Err = %v with %d retries left, want ErrBrokenBy and 2", v.Err, l.RetriesLeft())
	}

	t.Run("a model answer the validators refuse is corrected, not broken by the rewrite", func(t *testing.T) {
		l := orderLedger(t, 2, catalogue)
		v := l.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: `{"sku": "Z-9", "qty": 1}`, Rewrites: []enforce.Rewrite{
			{By: "fence", Text: "```json\n{\"sku\": \"Z-9\", \"qty\": 1}\n```"},
		}})
		if v.Row.Outcome != enforce.OutcomeRetried || v.Row.BrokenBy != "" || v.Row.Path != "/sku" || v.Row.Stage != enforce.StageSchemaValidate {
			t.Errorf("row = %+v, want retried at schema-validate /sku with no BrokenBy", v.Row)
		}
	})
}

// The case found porting the reference tests: a rewrite wraps the model's
// failing answer in a fence. The model is told of its own mistake
// (/amount), not of the fence it never wrote.
func TestTheCorrectionDescribesTheModelsOwnAnswer(t *testing.T) {
	const given = `{"sku": "A-1", "qty": 1, "amount": "ten"}`
	fenced := "```json\n" + given + "\n```"
	a := enforce.Answer{Iteration: 1, Given: given, Rewrites: []enforce.Rewrite{{By: "fence", Text: fenced}}}
	s := mustCompile(t, skuSchema)
	own := checkError(t, s.Check(given))

	l, _ := enforce.NewLedger(s, 2)
	v := l.Judge(t.Context(), a)
	want := enforce.Attempt{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageSchemaValidate,
		Error: own.Issues[0].Message, Path: "/amount", CorrectiveMessageHash: fnv.Hex32a(v.Corrective)}
	if v.Row != want {
		t.Errorf("row = %+v, want %+v", v.Row, want)
	}
	if want := own.Corrective(1, 3); v.Corrective != want {
		t.Errorf("corrective message:\n%s\nwant the one for the model's own answer:\n%s", v.Corrective, want)
	}
	if strings.Contains(v.Corrective, "json-parse") || strings.Contains(v.Corrective, "unexpected character") {
		t.Errorf("the message speaks of the rewrite:\n%s", v.Corrective)
	}

	t.Run("with no retries left the error describes it too, and Output is the answer as it stood", func(t *testing.T) {
		l, _ := enforce.NewLedger(s, 0)
		v := l.Judge(t.Context(), a)
		var oe *enforce.OutputError
		if !errors.As(v.Err, &oe) {
			t.Fatalf("Err = %v, want *OutputError", v.Err)
		}
		if oe.Stage != enforce.StageSchemaValidate || oe.Path != "/amount" || oe.Output != fenced || oe.BrokenBy != "" {
			t.Errorf("OutputError = %+v, want schema-validate at /amount, Output the fenced text, no BrokenBy", oe)
		}
		if err := s.Judge(t.Context(), a); !errors.As(err, &oe) || oe.Path != "/amount" {
			t.Errorf("Schema.Judge = %v, want the model's own failure at /amount", err)
		}
	})
}

func TestRepeatLimit(t *testing.T) {
	// Each answer fails with the same issue (/sku, type) in other words.
	sameIssue := []string{`{"sku": 1, "qty": 1}`, `{"sku": true, "qty": 1}`, `{"sku": [], "qty": 1}`, `{"sku": null, "qty": 1}`}
	tests := []struct {
		name    string
		opts    []enforce.LedgerOption
		answers []string
		want    []enforce.Outcome
		reason  enforce.Reason // of the last row
	}{
		{"by default every retry is spent", nil, sameIssue,
			[]enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomeRetried, enforce.OutcomeRetried, enforce.OutcomeExhausted}, ""},
		{"a limit of 2 stops on the second", []enforce.LedgerOption{enforce.WithRepeatLimit(2)}, sameIssue,
			[]enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomeExhausted}, enforce.ReasonRepeated},
		{"a limit of 3 stops on the third", []enforce.LedgerOption{enforce.WithRepeatLimit(3)}, sameIssue,
			[]enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomeRetried, enforce.OutcomeExhausted}, enforce.ReasonRepeated},
		{"off, the retries run out", []enforce.LedgerOption{enforce.WithRepeatLimit(0)}, sameIssue,
			[]enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomeRetried, enforce.OutcomeRetried, enforce.OutcomeExhausted}, ""},
		{"other issues are progress", []enforce.LedgerOption{enforce.WithRepeatLimit(2)}, []string{`{"sku": 1, "qty": 1}`, `{"sku": "A-1", "qty": "one"}`, `{"sku": "A-1"}`, `{"sku": "A-1", "qty": 1, "x": 1}`},
			[]enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomeRetried, enforce.OutcomeRetried, enforce.OutcomeExhausted}, ""},
		{"a subset of the issues is progress", []enforce.LedgerOption{enforce.WithRepeatLimit(2)}, []string{`{"sku": 1, "qty": "one"}`, `{"sku": 1, "qty": 1}`, `{"sku": "A-1", "qty": 1}`},
			[]enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomeRetried, enforce.OutcomePassed}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := enforce.NewLedger(mustCompile(t, skuSchema), 3, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			var last enforce.Verdict
			for i, a := range tt.answers {
				last = l.Judge(t.Context(), enforce.Answer{Iteration: i + 1, Given: a})
				if last.Row.Outcome != enforce.OutcomeRetried {
					break
				}
			}
			if got := outcomes(l.Attempts()); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("outcomes = %v, want %v", got, tt.want)
			}
			if got := last.Row.Reason; got != tt.reason {
				t.Errorf("Reason = %q, want %q", got, tt.reason)
			}
			if tt.reason != enforce.ReasonRepeated {
				return
			}
			if got, want := l.RetriesLeft(), 3-(len(tt.want)-1); got != want {
				t.Errorf("RetriesLeft() = %d, want %d unspent", got, want)
			}
			var oe *enforce.OutputError
			if !errors.As(last.Err, &oe) || oe.Reason != enforce.ReasonRepeated {
				t.Fatalf("Err = %v, want an *OutputError with Reason repeated", last.Err)
			}
			if !errors.Is(last.Err, enforce.ErrRepeated) || errors.Is(last.Err, enforce.ErrExhausted) {
				t.Errorf("Err = %v, want ErrRepeated and not ErrExhausted", last.Err)
			}
			if !strings.Contains(oe.Error(), "same issues as the answer before it") {
				t.Errorf("Error() = %q does not say why it stopped", oe.Error())
			}
		})
	}
}

func TestRepeatLimitCountsValidatorIssuesByPointerAndKeyword(t *testing.T) {
	says := func(name string) enforce.Validator {
		return enforce.NewValidator(name, func(_ context.Context, o order, _ enforce.Try) ([]enforce.Issue, error) {
			if o.SKU == name {
				return []enforce.Issue{{Path: "/sku", Message: name + " refuses " + o.SKU}}, nil
			}
			return nil, nil
		})
	}
	l := repeatLedger(t, 3, says("a"), says("b"))
	for i, sku := range []string{"a", "b", "b"} { // /sku by a, /sku by b, /sku by b again
		l.Judge(t.Context(), enforce.Answer{Iteration: i + 1, Given: `{"sku": "` + sku + `", "qty": 1}`})
	}
	want := []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomeRetried, enforce.OutcomeExhausted}
	if got := outcomes(l.Attempts()); !reflect.DeepEqual(got, want) {
		t.Errorf("outcomes = %v, want %v", got, want)
	}
}

func TestAWithheldAnswerEndsARepeat(t *testing.T) {
	l := repeatLedger(t, 3)
	l.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: `{"sku": 1, "qty": 1}`})
	l.Judge(t.Context(), enforce.Answer{Iteration: 2, Withheld: "refusal"})
	if v := l.Judge(t.Context(), enforce.Answer{Iteration: 3, Given: `{"sku": 1, "qty": 1}`}); v.Row.Outcome != enforce.OutcomeRetried {
		t.Errorf("outcome = %q, want retried: the failure before it was a refusal", v.Row.Outcome)
	}
}

func TestWithRepeatLimitRefusesLimitsOutOfRange(t *testing.T) {
	s := mustCompile(t, skuSchema)
	for _, n := range []int{-1, 1, enforce.MaxRetries + 2} {
		if l, err := enforce.NewLedger(s, 1, enforce.WithRepeatLimit(n)); err == nil || l != nil {
			t.Errorf("NewLedger(WithRepeatLimit(%d)) = %v, %v, want an error", n, l, err)
		}
		m := &script{}
		if _, _, err := enforce.Loop(t.Context(), s, 1, m.produce, enforce.WithRepeatLimit(n)); err == nil || len(m.saw) != 0 {
			t.Errorf("Loop(WithRepeatLimit(%d)) = %v after %d calls, want an error before any", n, err, len(m.saw))
		}
	}
	for _, n := range []int{0, 2, enforce.MaxRetries + 1} {
		if _, err := enforce.NewLedger(s, 1, enforce.WithRepeatLimit(n)); err != nil {
			t.Errorf("NewLedger(WithRepeatLimit(%d)) = %v", n, err)
		}
	}
}

func TestAReasonRowsJSON(t *testing.T) {
	l := repeatLedger(t, 2)
	l.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: `{"sku": 1, "qty": 1}`})
	r := l.Judge(t.Context(), enforce.Answer{Iteration: 2, Given: `{"sku": 2, "qty": 1}`}).Row
	if got, want := jsonKeys(t, r), []string{"attempt", "error", "iteration", "outcome", "path", "reason", "stage"}; !reflect.DeepEqual(got, want) {
		t.Errorf("keys = %v, want %v", got, want)
	}
	b, _ := json.Marshal(r)
	if !strings.Contains(string(b), `"reason":"repeated"`) {
		t.Errorf("row JSON %s lacks the reason", b)
	}
}

// The corrective message ends with data: every word of ours comes before
// the first quoted issue.
func TestCorrectiveMessageEndsWithTheIssues(t *testing.T) {
	s := mustCompile(t, `{"type": "object", "required": ["city", "when"], "properties": {"temp": {"type": "number"}}}`)
	ce := checkError(t, s.Check(`{"temp": "warm"}`))
	l, _ := enforce.NewLedger(s, 2)
	msg := l.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: `{"temp": "warm"}`, Truncated: true}).Corrective
	first := strings.Index(msg, "\n- at ")
	if first < 0 {
		t.Fatalf("no issue line:\n%s", msg)
	}
	ours := msg[:first]
	for _, want := range []string{"truncated at the output length limit", "attempt 1 of 3", "Reply with only the corrected JSON value", "schema-validate"} {
		if !strings.Contains(ours, want) {
			t.Errorf("%q is not before the issues:\n%s", want, msg)
		}
	}
	lines := strings.Split(msg[first+1:], "\n")
	if len(lines) != len(ce.Issues) {
		t.Errorf("%d lines after the first issue, want the %d issues only:\n%s", len(lines), len(ce.Issues), msg)
	}
	for _, line := range lines {
		if !strings.HasPrefix(line, "- at ") || !strings.HasSuffix(line, `"`) {
			t.Errorf("line %q after the first issue is not a quoted issue", line)
		}
	}
}

// The ledger's guide shows the corrective message for a two-issue
// failure; this keeps it the message the library writes.
func TestTheGuideShowsTheCorrectiveMessageAsItReads(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "docs", "ledger.md"))
	if err != nil {
		t.Skipf("no docs/ledger.md beside the package: %v", err)
	}
	_, after, ok := strings.Cut(string(readme), "it reads:\n\n```\n")
	shown, _, ok2 := strings.Cut(after, "\n```")
	if !ok || !ok2 {
		t.Fatal("docs/ledger.md no longer shows the corrective message after \"it reads:\"")
	}
	s, err := enforce.SchemaFor[Forecast]()
	if err != nil {
		t.Fatal(err)
	}
	if want := checkError(t, s.Check(`{"city": 7}`)).Corrective(1, 3); shown != want {
		t.Errorf("docs/ledger.md shows:\n%s\nthe library writes:\n%s", shown, want)
	}
}
