package enforce_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/fnv"
)

func TestAnAnswerThatArrivesAsAToolCall(t *testing.T) {
	s, err := enforce.CompileSchema([]byte(`{"type":"object","required":["a"]}`))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("a failing call's correction asks for the call again", func(t *testing.T) {
		l, _ := enforce.NewLedger(s, 1)
		v := l.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: `{}`, Tool: "final_result"})
		if v.Row.Outcome != enforce.OutcomeRetried || v.Row.CorrectiveMessageHash != fnv.Hex32a(v.Corrective) {
			t.Fatalf("row = %+v, want retried with the correction's hash", v.Row)
		}
		if !strings.Contains(v.Corrective, `Call the tool "final_result" with the corrected JSON value as its arguments`) ||
			strings.Contains(v.Corrective, "Reply with only") {
			t.Errorf("corrective = %q, want it to ask for the tool call instead of a reply of only JSON", v.Corrective)
		}
	})
	t.Run("a reply in text fails at json-parse at the root, whatever its text", func(t *testing.T) {
		l, _ := enforce.NewLedger(s, 0)
		v := l.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: `{"a":1}`, Tool: "final_result", NoCall: true})
		if v.Row.Outcome != enforce.OutcomeExhausted || v.Row.Stage != enforce.StageJSONParse || v.Row.Path != "" {
			t.Errorf("row = %+v, want exhausted at json-parse at the root", v.Row)
		}
		var ce *enforce.CheckError
		if !errors.As(v.Err, &ce) || len(ce.Issues) != 1 || ce.Issues[0].Keyword != "tool" {
			t.Errorf("err = %#v, want one issue of keyword tool", v.Err)
		}
	})
	t.Run("without a ledger a reply in text is an OutputError too", func(t *testing.T) {
		err := s.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: `{"a":1}`, Tool: "final_result", NoCall: true})
		var oe *enforce.OutputError
		if !errors.As(err, &oe) || oe.Stage != enforce.StageJSONParse {
			t.Errorf("Judge = %v, want an *OutputError at json-parse", err)
		}
	})
}
