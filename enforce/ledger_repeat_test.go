package enforce_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// Every json-parse failure is one issue at the root with keyword "json",
// so the repeat limit tells them apart by their form: two answers that
// fail to parse in different ways are progress, the same mistake twice
// is not, wherever in the answer it is made.
func TestRepeatLimitTellsJSONParseFailuresApartByTheirForm(t *testing.T) {
	const fenced = "```json\n{\"sku\": \"A-1\", \"qty\": 1}\n```"
	long := `{"sku": "` + strings.Repeat("A", 100) + `", "qty": 1}` // past the contract's 100 bytes
	tests := []struct {
		name          string
		first, second string
		repeated      bool
	}{
		{"prose, then a fenced answer", "Here is your order.", fenced, false},
		{"a fenced answer, then prose", fenced, "Sure! The order is A-1.", false},
		{"prose, then JSON with text after it", "The order is A-1.", `{"sku": "A-1", "qty": 1} Hope this helps!`, false},
		{"JSON with text after it, then an unfinished answer", `{"sku": "A-1", "qty": 1} done`, `{"sku": "A-1", "qty": `, false},
		{"an unfinished answer, then a syntax error", `{"sku": "A-1"`, `{"sku": 'A-1', "qty": 1}`, false},
		{"two different syntax errors", `{"sku": 'A-1', "qty": 1}`, `{"sku": "A-1" "qty": 1}`, false},
		{"an empty answer, then prose", "  \n", "Sorry, I cannot.", false},
		{"a fenced answer twice", fenced, "```\n{\"sku\": \"A-2\"}\n```", true},
		{"prose twice, in other words", "Here is your order.", "I think the order is A-1.", true},
		{"text after the value twice", `{"sku": "A-1", "qty": 1} Hope this helps!`, `{"sku": "B-2", "qty": 2}` + "\n```", true},
		{"the same syntax error at another place", `{"sku": 'A-1', "qty": 1}`, `{"qty": 1, "sku": 'B-2'}`, true},
		{"unfinished twice, cut at other points", `{"sku": "A-1", "qty": `, `{"sku": "A`, true},
		{"empty twice", "", " ", true},
		{"an answer too long to judge, then prose", long, "Here is your order.", false},
		{"prose, then an answer too long to judge", "Here is your order.", long, false},
		{"too long twice", long, long + " ", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := enforce.NewLedger(mustCompile(t, skuSchema).WithMaxAnswerBytes(100), 3, enforce.WithRepeatLimit(2))
			if err != nil {
				t.Fatal(err)
			}
			if v := l.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: tt.first}); v.Row.Stage != enforce.StageJSONParse || v.Row.Outcome != enforce.OutcomeRetried {
				t.Fatalf("first row = %+v, want retried at json-parse", v.Row)
			}
			v := l.Judge(t.Context(), enforce.Answer{Iteration: 2, Given: tt.second})
			if v.Row.Stage != enforce.StageJSONParse {
				t.Fatalf("second row = %+v, want a json-parse failure", v.Row)
			}
			want := enforce.Attempt{Outcome: enforce.OutcomeRetried}
			if tt.repeated {
				want = enforce.Attempt{Outcome: enforce.OutcomeExhausted, Reason: enforce.ReasonRepeated}
			}
			if v.Row.Outcome != want.Outcome || v.Row.Reason != want.Reason {
				t.Errorf("second row = %+v, want outcome %q, reason %q", v.Row, want.Outcome, want.Reason)
			}
		})
	}
}

// An Incremental's early verdict on a cut answer has its form too: prose cut
// at its first byte, then a fence cut at its first, is progress.
func TestRepeatLimitTellsCutAnswersApartByTheirForm(t *testing.T) {
	s := mustCompile(t, skuSchema)
	cut := func(answer string) enforce.Answer {
		st := s.Stream()
		for i := range len(answer) {
			if _, err := st.WriteString(answer[i : i+1]); err != nil {
				ce, ok := err.(*enforce.CheckError)
				if !ok {
					t.Fatalf("Write = %v, want a *CheckError", err)
				}
				return enforce.Answer{Given: answer[:i+1], Cut: &enforce.Cut{Verdict: ce, Bytes: i + 1}}
			}
		}
		t.Fatalf("the incremental judge gave no early verdict on %q", answer)
		return enforce.Answer{}
	}
	l, _ := enforce.NewLedger(s, 3, enforce.WithRepeatLimit(2))
	for i, answer := range []string{"Sure, here it is", "```json\n{}", "```json\n{}"} {
		a := cut(answer)
		a.Iteration = i + 1
		l.Judge(t.Context(), a)
	}
	got := outcomes(l.Attempts())
	if want := []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomeRetried, enforce.OutcomeExhausted}; !slices.Equal(got, want) {
		t.Errorf("outcomes = %v, want %v: prose, a fence, the same fence again", got, want)
	}
}

// An answer truncated at the output limit fails for the limit, and its
// correction asks for a shorter answer: it is not the same failure as an
// answer the model left unfinished on its own, before or after it. A
// shorter answer that forgot its closing brace is progress, not a repeat.
func TestRepeatLimitTellsAnAnswerCutOffAtTheOutputLimitApart(t *testing.T) {
	tests := []struct {
		name   string
		first  enforce.Answer
		second enforce.Answer
	}{
		{"truncated at the limit, then unfinished on its own",
			enforce.Answer{Given: `{"sku": "A-1", "qty": 1, "amount": 12`, Truncated: true},
			enforce.Answer{Given: `{"sku": "A-1", "qty": 1`}},
		{"unfinished on its own, then truncated at the limit",
			enforce.Answer{Given: `{"sku": "A-1", "qty": 1`},
			enforce.Answer{Given: `{"sku": "A-1", "qty": 1, "amount": 12`, Truncated: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := enforce.NewLedger(mustCompile(t, skuSchema), 3, enforce.WithRepeatLimit(2))
			if err != nil {
				t.Fatal(err)
			}
			tt.first.Iteration, tt.second.Iteration = 1, 2
			if v := l.Judge(t.Context(), tt.first); v.Row.Outcome != enforce.OutcomeRetried {
				t.Fatalf("first row = %+v, want retried", v.Row)
			}
			if v := l.Judge(t.Context(), tt.second); v.Row.Outcome != enforce.OutcomeRetried || v.Row.Reason != "" {
				t.Errorf("second row = %+v, want retried: the two failed for different reasons", v.Row)
			}
		})
	}
}

// The same syntax error is the same failure whatever text of the
// model's it quotes: unquoted keys are one mistake whichever key comes
// first, duplicate keys one whichever key is doubled. A character that
// tells mistakes apart still does: a single quote is not a trailing
// comma, nor a letter.
func TestRepeatLimitClassesASyntaxErrorApartFromTheTextItQuotes(t *testing.T) {
	tests := []struct {
		name          string
		first, second string
		repeated      bool
	}{
		{"unquoted keys, another key first", `{sku: "A-1", qty: 1}`, `{qty: 1, sku: "A-1"}`, true},
		{"a bare word for a value, another word", `{"sku": A1, "qty": 1}`, `{"sku": B2, "qty": 1}`, true},
		{"a key twice, another key twice", `{"sku": "A-1", "sku": "A-2", "qty": 1}`, `{"sku": "A-1", "qty": 1, "qty": 2}`, true},
		{"a raw control character in a string, another one", "{\"sku\": \"A\n1\", \"qty\": 1}", "{\"sku\": \"A\t1\", \"qty\": 1}", true},
		{"an unquoted key, then a single-quoted one", `{sku: "A-1", "qty": 1}`, `{'sku': "A-1", "qty": 1}`, false},
		{"a trailing comma, then a single quote", `{"sku": "A-1", "qty": 1,}`, `{'sku': "A-1", "qty": 1}`, false},
		{"a single-quoted value, then a bare word", `{"sku": 'A-1', "qty": 1}`, `{"sku": A1, "qty": 1}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := enforce.NewLedger(mustCompile(t, skuSchema), 3, enforce.WithRepeatLimit(2))
			if err != nil {
				t.Fatal(err)
			}
			if v := l.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: tt.first}); v.Row.Stage != enforce.StageJSONParse || v.Row.Outcome != enforce.OutcomeRetried {
				t.Fatalf("first row = %+v, want retried at json-parse", v.Row)
			}
			v := l.Judge(t.Context(), enforce.Answer{Iteration: 2, Given: tt.second})
			if v.Row.Stage != enforce.StageJSONParse {
				t.Fatalf("second row = %+v, want a json-parse failure", v.Row)
			}
			if got := v.Row.Reason == enforce.ReasonRepeated; got != tt.repeated {
				t.Errorf("second row = %+v: repeated %t, want %t", v.Row, got, tt.repeated)
			}
		})
	}
}
