package enforce_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

var sentiments = []enforce.Label{
	{Name: "positive", Description: "the review is favourable"},
	{Name: "negative", Description: "the review is unfavourable"},
	{Name: "neutral"},
}

func mustChoice(t testing.TB, multi bool, labels ...enforce.Label) *enforce.Schema {
	t.Helper()
	make := enforce.Choice
	if multi {
		make = enforce.MultiLabel
	}
	s, err := make(labels...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// streamed feeds answer to s.Stream in pieces of size bytes and returns
// the early verdict (nil when none), the bytes read, and Close's.
func streamed(s *enforce.Schema, answer string, size int) (early error, read int, closed error) {
	st := s.Stream()
	for i := 0; i < len(answer); i += size {
		n, err := st.WriteString(answer[i:min(i+size, len(answer))])
		read += n
		if err != nil {
			return err, read, st.Close()
		}
	}
	return nil, read, st.Close()
}

func TestChoiceReadsEachFormOfALabel(t *testing.T) {
	one := mustChoice(t, false, sentiments...)
	multi := mustChoice(t, true, sentiments...)
	tests := []struct {
		name   string
		s      *enforce.Schema
		answer string
		decode any
	}{
		{"a bare label", one, "positive", "positive"},
		{"a JSON string", one, ` "negative" `, "negative"},
		{"the object form", one, `{"label": "neutral"}`, "neutral"},
		{"a JSON array of labels", multi, `["positive", "neutral"]`, []string{"positive", "neutral"}},
		{"the multi-label object form", multi, `{"labels": ["negative"]}`, []string{"negative"}},
		{"a bare label as a set of one", multi, "neutral", []string{"neutral"}},
		{"a JSON string as a set of one", multi, `"positive"`, []string{"positive"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.s.Check(tt.answer); err != nil {
				t.Fatalf("Check(%q) = %v, want nil", tt.answer, err)
			}
			got := reflect.New(reflect.TypeOf(tt.decode))
			if err := tt.s.Decode(tt.answer, got.Interface()); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Elem().Interface(), tt.decode) {
				t.Errorf("Decode(%q) = %v, want %v", tt.answer, got.Elem().Interface(), tt.decode)
			}
		})
	}
}

func TestChoiceFailsWhatIsNoLabelAtItsOwnPointer(t *testing.T) {
	one := mustChoice(t, false, sentiments...)
	multi := mustChoice(t, true, sentiments...)
	tests := []struct {
		name      string
		s         *enforce.Schema
		answer    string
		stage     enforce.Stage
		path, key string
	}{
		{"prose", one, "The review is positive.", enforce.StageSchemaValidate, "", "enum"},
		{"a prefix of a label", one, "pos", enforce.StageSchemaValidate, "", "enum"},
		{"a label in another case, without the repair", one, "Positive", enforce.StageSchemaValidate, "", "enum"},
		{"a label and a newline, without the repair", one, "positive\n", enforce.StageSchemaValidate, "", "enum"},
		{"a number", one, "3", enforce.StageSchemaValidate, "", "type"},
		{"an array for one label", one, `["positive"]`, enforce.StageSchemaValidate, "", "type"},
		{"the object form with a wrong label", one, `{"label": "pos"}`, enforce.StageSchemaValidate, "/label", "enum"},
		{"the object form with another member", one, `{"label": "positive", "why": "x"}`, enforce.StageSchemaValidate, "/why", "additionalProperties"},
		{"broken JSON", one, `{"label": "positive"`, enforce.StageJSONParse, "", "json"},
		{"a second item that is no label", multi, `["positive", "happy"]`, enforce.StageSchemaValidate, "/1", "enum"},
		{"a label twice", multi, `["positive", "positive"]`, enforce.StageSchemaValidate, "", "uniqueItems"},
		{"no label at all", multi, `[]`, enforce.StageSchemaValidate, "", "minItems"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ce := checkError(t, tt.s.Check(tt.answer))
			if ce.Stage != tt.stage || ce.Path() != tt.path || ce.Issues[0].Keyword != tt.key {
				t.Errorf("Check(%q) = %s at %q (%s), want %s at %q (%s)", tt.answer, ce.Stage, ce.Path(), ce.Issues[0].Keyword, tt.stage, tt.path, tt.key)
			}
		})
	}
}

func TestRepairLabelReadsANearMissAsItsLabel(t *testing.T) {
	plain := mustChoice(t, false, sentiments...)
	mended := plain.WithRepairs(enforce.RepairLabel)
	for _, answer := range []string{"Positive.", " POSITIVE \n", "positive.", `"Positive."`, `{"label": "Positive"}`} {
		t.Run(answer, func(t *testing.T) {
			if plain.Check(answer) == nil {
				t.Fatalf("Check(%q) passed without the repair", answer)
			}
			if err := mended.Check(answer); err != nil {
				t.Fatalf("Check(%q) with the repair = %v", answer, err)
			}
			text, applied := repairedByLedger(t, mended, answer)
			if applied != enforce.RepairLabel {
				t.Errorf("row repaired = %s, want label", applied)
			}
			// Repaired says what the ledger passed.
			if rt, ra := mended.Repaired(answer); rt != text || ra != applied {
				t.Errorf("Repaired(%q) = %q, %s; the ledger passed %q, %s", answer, rt, ra, text, applied)
			}
			var got string
			if err := mended.Decode(text, &got); err != nil || got != "positive" {
				t.Errorf("Decode(%q) = %q, %v; want positive", text, got, err)
			}
		})
	}
}

// repairedByLedger judges answer as a run's only answer and returns the
// text the ledger passed and the repairs its row names.
func repairedByLedger(t *testing.T, s *enforce.Schema, answer string) (string, enforce.Repairs) {
	t.Helper()
	l, err := enforce.NewLedger(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	v := l.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: answer})
	if v.Row.Outcome != enforce.OutcomePassed {
		t.Fatalf("row %+v, want passed", v.Row)
	}
	if v.Row.Kind != enforce.KindChoice {
		t.Errorf("row kind = %q, want choice", v.Row.Kind)
	}
	return v.Answer, v.Row.Repaired
}

func TestRepairLabelLeavesWhatIsNearNoOneLabelToACorrection(t *testing.T) {
	s := mustChoice(t, false, sentiments...).WithRepairs(enforce.RepairLabel)
	for _, answer := range []string{"pos", "Positive sentiment", "positive!", "positive..", "It is positive."} {
		t.Run(answer, func(t *testing.T) {
			l, err := enforce.NewLedger(s, 1)
			if err != nil {
				t.Fatal(err)
			}
			v := l.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: answer})
			if v.Row.Outcome != enforce.OutcomeRetried || v.Row.Repaired != 0 || v.Row.Stage != enforce.StageSchemaValidate {
				t.Fatalf("row %+v, want retried at schema-validate with no repair", v.Row)
			}
			for _, want := range []string{`"positive", "negative", "neutral"`, "Reply with only one of the labels"} {
				if !strings.Contains(v.Corrective, want) {
					t.Errorf("corrective %q does not say %q", v.Corrective, want)
				}
			}
			if strings.Contains(v.Corrective, "JSON Schema") {
				t.Errorf("corrective speaks of a JSON Schema: %q", v.Corrective)
			}
		})
	}
}

func TestRepairLabelMendsEachLabelOfASet(t *testing.T) {
	s := mustChoice(t, true, sentiments...).WithRepairs(enforce.RepairLabel)
	l, _ := enforce.NewLedger(s, 0)
	v := l.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: `["Positive", " neutral."]`})
	if v.Row.Outcome != enforce.OutcomePassed || v.Row.Repaired != enforce.RepairLabel || v.Row.Kind != enforce.KindMultiLabel {
		t.Fatalf("row %+v, want passed, repaired by label, kind multi-label", v.Row)
	}
	var got []string
	if err := s.Decode(v.Answer, &got); err != nil || !slices.Equal(got, []string{"positive", "neutral"}) {
		t.Errorf("Decode(%q) = %v, %v", v.Answer, got, err)
	}
}

func TestChoiceRefusesLabelsAnAnswerCouldNotTellApart(t *testing.T) {
	for _, labels := range [][]string{
		{}, {""}, {"a", "A"}, {"a", "b", "a"}, {" a"}, {"a\n"}, {`"a"`}, {"[a]"}, {"{a}"}, {"a\x00"}, {"\xff"}, {"a\ufffd"},
	} {
		ls := make([]enforce.Label, len(labels))
		for i, n := range labels {
			ls[i] = enforce.Label{Name: n}
		}
		_, err := enforce.Choice(ls...)
		var se *enforce.SchemaError
		if !errors.As(err, &se) {
			t.Errorf("Choice(%q) = %v, want a *SchemaError", labels, err)
		}
	}
}

func TestChoiceSchemaIsTheObjectFormWithTheLabelsAsAnEnum(t *testing.T) {
	s := mustChoice(t, false, sentiments...)
	js := string(s.JSON())
	for _, want := range []string{`"required":["label"]`, `"enum":["positive","negative","neutral"]`, `the review is favourable`, `"additionalProperties":false`} {
		if !strings.Contains(js, want) {
			t.Errorf("JSON() = %s, want it to hold %s", js, want)
		}
	}
	if s.Kind() != enforce.KindChoice || !strings.Contains(s.Instructions(), `- "positive": the review is favourable`) {
		t.Errorf("Kind() = %q, Instructions() = %q", s.Kind(), s.Instructions())
	}
	if _, err := s.For(reflect.TypeFor[string]()); err == nil {
		t.Error("For bound a choice to a Go type")
	}
}

func TestChoiceStreamDoomsProseAtItsFirstByte(t *testing.T) {
	for _, s := range []*enforce.Schema{mustChoice(t, false, sentiments...), mustChoice(t, false, sentiments...).WithRepairs(enforce.RepairLabel)} {
		answer := "The review is positive."
		early, read, _ := streamed(s, answer, 4)
		if early == nil || read != 1 {
			t.Fatalf("early verdict %v after %d bytes, want one after 1", early, read)
		}
		want := checkError(t, s.Check(answer))
		if got := checkError(t, early); !reflect.DeepEqual(got.Issues, want.Issues) || got.Stage != want.Stage {
			t.Errorf("early verdict %+v, want Check's %+v", got, want)
		}
	}
}

func TestChoiceStreamDoomsAtTheByteNoLabelCanFollow(t *testing.T) {
	s := mustChoice(t, false, sentiments...)
	mended := s.WithRepairs(enforce.RepairLabel)
	tests := []struct {
		s      *enforce.Schema
		answer string
		read   int // 0: no early verdict
	}{
		{s, "positivex", 9},
		{s, "posh", 4},
		{s, "nope", 2},
		{s, "null and void", 6},
		{s, "12 things", 4},
		{s, " positive", 2},
		{mended, " positive", 0},
		{mended, "Positive.\n", 0},
		{mended, "Positive sentiment", 10},
		{mended, "positive..", 10},
		{s, `"The review`, 0}, // JSON: judged at its end
		{s, `{"label": "nope"}`, 0},
		{s, "   ", 0},
	}
	for _, tt := range tests {
		for _, size := range []int{1, 3, 100} {
			early, read, closed := streamed(tt.s, tt.answer, size)
			if tt.read == 0 {
				if early != nil {
					t.Errorf("%q in pieces of %d: early verdict %v", tt.answer, size, early)
				}
			} else if early == nil || read != tt.read {
				t.Errorf("%q in pieces of %d: early verdict %v after %d bytes, want one after %d", tt.answer, size, early, read, tt.read)
			}
			if check := tt.s.Check(tt.answer); (closed == nil) != (check == nil) || closed != nil && closed.Error() != check.Error() {
				t.Errorf("%q: Close = %v, Check = %v", tt.answer, closed, check)
			}
		}
	}
}

func TestChoiceValidatorsGetTheLabel(t *testing.T) {
	var got []string
	v := enforce.NewValidator("seen", func(_ context.Context, label string, _ enforce.Try) ([]enforce.Issue, error) {
		got = append(got, label)
		if label == "neutral" {
			return []enforce.Issue{{Message: "pick a side"}}, nil
		}
		return nil, nil
	})
	s := withValidators(t, mustChoice(t, false, sentiments...).WithRepairs(enforce.RepairLabel), v)
	l, _ := enforce.NewLedger(s, 1)
	first := l.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: `{"label": "Neutral"}`})
	second := l.Judge(context.Background(), enforce.Answer{Iteration: 2, Given: "positive"})
	if first.Row.Outcome != enforce.OutcomeRetried || first.Row.Error != "pick a side" || second.Row.Outcome != enforce.OutcomePassed {
		t.Fatalf("rows %+v, %+v", first.Row, second.Row)
	}
	if !strings.Contains(first.Corrective, "the answer is one of the labels, but checks of it failed") {
		t.Errorf("corrective %q", first.Corrective)
	}
	if !slices.Equal(got, []string{"neutral", "positive"}) {
		t.Errorf("validator saw %q", got)
	}
}

func TestChoiceInToolModeAsksForTheCall(t *testing.T) {
	s := mustChoice(t, false, sentiments...)
	l, _ := enforce.NewLedger(s, 1)
	v := l.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: `{"label": "pos"}`, Tool: "classify"})
	if !strings.Contains(v.Corrective, `Call the tool "classify"`) || strings.Contains(v.Corrective, "Reply with only") {
		t.Errorf("corrective %q", v.Corrective)
	}
}

func TestChoiceStreamHasNoPartialDocument(t *testing.T) {
	st := mustChoice(t, false, sentiments...).Stream()
	if _, err := st.WriteString(`{"label": "posi`); err != nil {
		t.Fatal(err)
	}
	if doc, settled := st.Partial(); doc != nil || settled != nil {
		t.Errorf("Partial = %q, %q; want nil for a choice", doc, settled)
	}
}

func TestRowKindIsTheContractsOwnElseWithKinds(t *testing.T) {
	for _, c := range []struct {
		s    *enforce.Schema
		want enforce.Kind
	}{
		{mustChoice(t, false, sentiments...), enforce.KindChoice},
		{mustCompile(t, `{"type": "array"}`), enforce.KindElements},
	} {
		l, err := enforce.NewLedger(c.s, 0, enforce.WithKind(enforce.KindElements))
		if err != nil {
			t.Fatal(err)
		}
		if v := l.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: "x"}); v.Row.Kind != c.want {
			t.Errorf("row kind %q, want %q", v.Row.Kind, c.want)
		}
	}
}
