package main

import (
	"context"
	"errors"
	"testing"

	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/fnv"
)

func TestTriageRecoversFromAnAnswerOutsideTheEnum(t *testing.T) {
	m := agenttest.NewModel(t,
		agenttest.Reply(`{"priority": "P1", "team": "billing"}`), // not in the enum
		agenttest.Reply(`{"priority": "urgent", "team": "billing"}`),
	)
	got, res, err := TriageTicket(context.Background(), NewTriageAgent(m), "I was charged twice!")
	if err != nil {
		t.Fatalf("TriageTicket: %v", err)
	}
	if want := (Triage{Priority: "urgent", Team: "billing"}); got != want {
		t.Errorf("triage = %+v, want %+v", got, want)
	}

	// The ledger: one row per final answer, in order.
	if len(res.Attempts) != 2 {
		t.Fatalf("attempts = %+v, want 2 rows", res.Attempts)
	}
	first, second := res.Attempts[0], res.Attempts[1]
	if first.Outcome != enforce.OutcomeRetried || first.Stage != enforce.StageSchemaValidate || first.Path != "/priority" {
		t.Errorf("row 1 = %+v, want retried at schema-validate /priority", first)
	}
	if second.Outcome != enforce.OutcomePassed {
		t.Errorf("row 2 = %+v, want passed", second)
	}

	// The row joins the corrective message the model was sent.
	sent := m.Requests()[1].Messages
	corrective := sent[len(sent)-1]
	if got, want := fnv.Hex32a(corrective.Content), first.CorrectiveMessageHash; got != want {
		t.Errorf("hash of the corrective message = %s, row says %s", got, want)
	}
}

func TestTriageGivesUpWithTheLedgerInTheError(t *testing.T) {
	m := agenttest.NewModel(t,
		agenttest.Reply("This looks urgent, billing should handle it."), // json-parse
		agenttest.Reply(`{"priority": "P1", "team": "billing"}`),        // schema-validate /priority
		agenttest.Reply(`{"priority": "urgent"}`),                       // schema-validate /team
	)
	_, _, err := TriageTicket(context.Background(), NewTriageAgent(m), "I was charged twice!")
	var oe *enforce.OutputError
	if !errors.As(err, &oe) {
		t.Fatalf("err = %v, want *enforce.OutputError", err)
	}
	if !errors.Is(err, enforce.ErrExhausted) {
		t.Errorf("errors.Is(err, ErrExhausted) = false")
	}
	outcomes := []enforce.Outcome{}
	for _, r := range oe.Attempts {
		outcomes = append(outcomes, r.Outcome)
	}
	want := []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomeRetried, enforce.OutcomeExhausted}
	if len(outcomes) != len(want) {
		t.Fatalf("outcomes = %v, want %v", outcomes, want)
	}
	for i := range want {
		if outcomes[i] != want[i] {
			t.Errorf("outcomes = %v, want %v", outcomes, want)
		}
	}
}

func TestTriageStopsWhenTheModelRepeatsItsMistake(t *testing.T) {
	m := agenttest.NewModel(t,
		agenttest.Reply("This looks urgent, billing should handle it."),
		agenttest.Reply("Urgent. Billing."), // fails as the first did: the correction is not helping
	)
	_, res, err := TriageTicket(context.Background(), NewTriageAgent(m), "I was charged twice!")
	if !errors.Is(err, enforce.ErrRepeated) {
		t.Fatalf("err = %v, want one matching enforce.ErrRepeated", err)
	}
	last := res.Attempts[len(res.Attempts)-1]
	if last.Outcome != enforce.OutcomeExhausted || last.Reason != enforce.ReasonRepeated {
		t.Errorf("last row = %+v, want exhausted, reason repeated", last)
	}
}
