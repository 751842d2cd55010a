package enforce_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

func TestAnAnswerThatNeverCame(t *testing.T) {
	obj, err := enforce.CompileSchema([]byte(`{"type":"object","required":["a"]}`))
	if err != nil {
		t.Fatal(err)
	}
	choice, err := enforce.Choice(enforce.Label{Name: "yes"}, enforce.Label{Name: "no"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		schema *enforce.Schema
		answer enforce.Answer
		stage  enforce.Stage
	}{
		{"blank after thinking", obj, enforce.Answer{Iteration: 1, Given: "\n", Thinking: enforce.Thinking{Bytes: 9, Inline: true}}, enforce.StageNoAnswer},
		{"blank at the output limit", obj, enforce.Answer{Iteration: 1, Truncated: true}, enforce.StageNoAnswer},
		{"blank after hidden reasoning tokens", obj, enforce.Answer{Iteration: 1, Cost: enforce.Cost{ReasoningTokens: 30}}, enforce.StageNoAnswer},
		{"a choice's, blank after thinking", choice, enforce.Answer{Iteration: 1, Thinking: enforce.Thinking{Bytes: 3}}, enforce.StageNoAnswer},
		{"blank with nothing else", obj, enforce.Answer{Iteration: 1, Given: " "}, enforce.StageJSONParse},
		{"an answer after thinking", obj, enforce.Answer{Iteration: 1, Given: "{}", Thinking: enforce.Thinking{Bytes: 3}}, enforce.StageSchemaValidate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := enforce.NewLedger(tc.schema, 1)
			if err != nil {
				t.Fatal(err)
			}
			v := l.Judge(t.Context(), tc.answer)
			if v.Row.Stage != tc.stage || v.Row.Outcome != enforce.OutcomeRetried {
				t.Fatalf("row = %+v, want retried at %s", v.Row, tc.stage)
			}
			if tc.answer.Thinking != (enforce.Thinking{}) && !reflect.DeepEqual(v.Row.Thinking, &tc.answer.Thinking) {
				t.Errorf("row's Thinking = %+v, want %+v", v.Row.Thinking, tc.answer.Thinking)
			}
			if tc.stage != enforce.StageNoAnswer {
				return
			}
			if strings.Contains(v.Corrective, "Stage:") || !strings.Contains(v.Corrective, "give the answer") {
				t.Errorf("corrective = %q, want one asking for the answer, citing no stage", v.Corrective)
			}
			if tc.schema == choice && !strings.Contains(v.Corrective, `"yes"`) {
				t.Errorf("corrective = %q, want the choice's own instruction", v.Corrective)
			}
		})
	}
}
