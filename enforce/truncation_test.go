package enforce_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/fnv"
)

// cut is an answer the model's output limit cut short.
const cut = `{"city": "Os`

func TestLedgerTruncatedAnswers(t *testing.T) {
	tests := []struct {
		name    string
		retries int
		answers []enforce.Answer
		want    []enforce.Attempt
		left    int
	}{
		{
			name:    "an answer truncated twice in a row is exhausted with retries left",
			retries: 3,
			answers: []enforce.Answer{
				{Iteration: 1, Given: cut, Truncated: true},
				{Iteration: 2, Given: cut, Truncated: true},
			},
			want: []enforce.Attempt{
				{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageJSONParse, Truncated: true},
				{Attempt: 2, Iteration: 2, Outcome: enforce.OutcomeExhausted, Stage: enforce.StageJSONParse, Truncated: true},
			},
			left: 2,
		},
		{
			name:    "a cut answer then a complete one passes",
			retries: 1,
			answers: []enforce.Answer{
				{Iteration: 1, Given: cut, Truncated: true},
				{Iteration: 2, Given: good},
			},
			want: []enforce.Attempt{
				{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageJSONParse, Truncated: true},
				{Attempt: 2, Iteration: 2, Outcome: enforce.OutcomePassed},
			},
		},
		{
			name:    "a cut answer after an uncut failure is corrected again",
			retries: 3,
			answers: []enforce.Answer{
				{Iteration: 1, Given: cut, Truncated: true},
				{Iteration: 2, Given: prose},
				{Iteration: 3, Given: cut, Truncated: true},
			},
			want: []enforce.Attempt{
				{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageJSONParse, Truncated: true},
				{Attempt: 2, Iteration: 2, Outcome: enforce.OutcomeRetried, Stage: enforce.StageJSONParse},
				{Attempt: 3, Iteration: 3, Outcome: enforce.OutcomeRetried, Stage: enforce.StageJSONParse, Truncated: true},
			},
		},
		{
			name:    "a cut answer that keeps the contract passes, and its row does not say truncated",
			retries: 1,
			answers: []enforce.Answer{{Iteration: 1, Given: good, Truncated: true}},
			want:    []enforce.Attempt{{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomePassed}},
			left:    1,
		},
		{
			name:    "a cut answer with no retries left is exhausted and says truncated",
			retries: 0,
			answers: []enforce.Answer{{Iteration: 1, Given: `{}`, Truncated: true}},
			want:    []enforce.Attempt{{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeExhausted, Stage: enforce.StageSchemaValidate, Path: "/city", Truncated: true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Cut answers fail alike (json-parse at ""): the repeat limit,
			// tested on its own, is off here.
			l := newLedger(t, tt.retries, enforce.WithRepeatLimit(0))
			var last enforce.Verdict
			for _, a := range tt.answers {
				last = l.Judge(context.Background(), a)
			}
			var got []enforce.Attempt
			for _, r := range l.Attempts() {
				r.Error = ""
				got = append(got, row(r))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("rows =\n%+v\nwant\n%+v", got, tt.want)
			}
			if got, want := l.RetriesLeft(), tt.left; got != want {
				t.Errorf("RetriesLeft() = %d, want %d", got, want)
			}
			if last.Row.Outcome != enforce.OutcomeExhausted {
				return
			}
			var oe *enforce.OutputError
			if !errors.As(last.Err, &oe) {
				t.Fatalf("Err = %v, want *enforce.OutputError", last.Err)
			}
			if got, want := oe.Truncated, last.Row.Truncated; got != want {
				t.Errorf("OutputError.Truncated = %v, want %v", got, want)
			}
			if !errors.Is(last.Err, enforce.ErrExhausted) {
				t.Errorf("Err does not match ErrExhausted")
			}
		})
	}
}

func TestCorrectiveMessageOfATruncatedAnswerAsksForAShorterOne(t *testing.T) {
	s := mustCompile(t, citySchema)
	plain := newLedger(t, 2).Judge(context.Background(), enforce.Answer{Iteration: 1, Given: cut})
	cutOff := newLedger(t, 2).Judge(context.Background(), enforce.Answer{Iteration: 1, Given: cut, Truncated: true})
	if got, want := cutOff.Row.CorrectiveMessageHash, fnv.Hex32a(cutOff.Corrective); got != want {
		t.Errorf("CorrectiveMessageHash = %q, want fnv.Hex32a(Corrective) = %q", got, want)
	}
	// Our words about the cut come first; the rest is the usual message.
	if !strings.HasSuffix(cutOff.Corrective, plain.Corrective) || cutOff.Corrective == plain.Corrective {
		t.Errorf("the truncated answer's message is not the usual one with words before it:\n%s", cutOff.Corrective)
	}
	for _, want := range []string{"truncated", "output length limit", "shorter"} {
		if !strings.Contains(cutOff.Corrective, want) {
			t.Errorf("the message does not contain %q:\n%s", want, cutOff.Corrective)
		}
	}
	if got, want := checkError(t, s.Check(cut)).Corrective(1, 3), plain.Corrective; got != want {
		t.Errorf("CheckError.Corrective changed:\n%s\nwant\n%s", got, want)
	}
}

func TestLedgerWithheldAnswer(t *testing.T) {
	l := newLedger(t, 2)
	v := l.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: "I can't help with that.", Withheld: "refusal"})
	want := enforce.Attempt{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeExhausted, Withheld: "refusal"}
	if got := v.Row; got != want {
		t.Errorf("row = %+v, want %+v", got, want)
	}
	if v.Err != nil || v.Corrective != "" {
		t.Errorf("Verdict = %+v, want no error and no corrective message", v)
	}
	if got, want := l.RetriesLeft(), 2; got != want {
		t.Errorf("RetriesLeft() = %d, want %d: a withheld answer spends no retry", got, want)
	}
	if got, want := jsonKeys(t, v.Row), []string{"attempt", "iteration", "outcome", "withheld"}; !reflect.DeepEqual(got, want) {
		t.Errorf("keys = %v, want %v", got, want)
	}
}

func TestTruncatedRowAndErrorSayTruncated(t *testing.T) {
	s := mustCompile(t, citySchema)
	err := s.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: cut, Truncated: true})
	var oe *enforce.OutputError
	if !errors.As(err, &oe) || !oe.Truncated || oe.Stage != enforce.StageJSONParse {
		t.Errorf("Judge = %#v, want an *OutputError at json-parse with Truncated", err)
	}
	if err := s.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: cut}); errors.As(err, &oe) && oe.Truncated {
		t.Errorf("an answer not truncated gives Truncated")
	}
	r := newLedger(t, 1).Judge(context.Background(), enforce.Answer{Iteration: 1, Given: cut, Truncated: true}).Row
	if got, want := jsonKeys(t, r), []string{"attempt", "correctiveMessageHash", "error", "iteration", "outcome", "stage", "truncated"}; !reflect.DeepEqual(got, want) {
		t.Errorf("keys = %v, want %v", got, want)
	}
}
