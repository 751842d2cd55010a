package agent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

func tweet(t testing.TB) *enforce.Schema {
	t.Helper()
	s, err := enforce.Text(enforce.MaxLength(80), enforce.MustContain("Paris"), enforce.MustNotContain("as an AI"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRunTextCutsAnAnswerAtAForbiddenSubstring(t *testing.T) {
	first := "Well, as an AI, I cannot feel the weather, but Paris is sunny."
	m := agenttest.NewStreamingModel(t,
		agenttest.Reply(first).InChunks(4), // "as an AI" is split across chunks
		agenttest.Reply("Sunny in Paris, 21 degrees.").InChunks(4))
	a := agent.New(m, agent.WithOutputSchema(tweet(t)), agent.WithOutputRetries(2))
	got, res, err := agent.RunText(t.Context(), a, "Weather in Paris, as a tweet?")
	if err != nil {
		t.Fatal(err)
	}
	if got != "Sunny in Paris, 21 degrees." {
		t.Errorf("text %q", got)
	}
	at := strings.Index(first, "as an AI") + len("as an AI")
	row := res.Attempts[0]
	if row.Outcome != enforce.OutcomeRetried || row.Kind != enforce.KindText || row.Stage != enforce.StageSchemaValidate || row.Cut == nil || row.Cut.Bytes != at {
		t.Fatalf("first row %+v, want retried at schema-validate, cut after %d bytes", row, at)
	}
	if kept := res.Messages[2].Content; kept != first[:at] {
		t.Errorf("the conversation keeps %q, want the answer up to the cut", kept)
	}
	corrective := lastUser(m.Requests()[1])
	for _, want := range []string{fmt.Sprintf("We stopped reading your previous answer after its first %d bytes", at), "Reply with only the corrected text", `contains \"as an AI\", which it must not`} {
		if !strings.Contains(corrective, want) {
			t.Errorf("corrective %q does not say %q", corrective, want)
		}
	}
	if c := m.Consumed()[0]; c.Chunks >= c.TotalChunks {
		t.Errorf("read %d of %d chunks: the answer was not cut", c.Chunks, c.TotalChunks)
	}
}

func TestRunTextStatesItsRulesAndSendsNoSchema(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply("Rain in Paris."))
	if _, _, err := agent.RunText(t.Context(), agent.New(m, agent.WithOutputSchema(tweet(t)), agent.WithSystemPrompt("You are terse.")), "Weather?"); err != nil {
		t.Fatal(err)
	}
	req := m.Requests()[0]
	sys := req.Messages[0].Content
	for _, want := range []string{"You are terse.\n\n", "plain text, not JSON", "at most 80 characters", `it contains "Paris"`, `it does not contain "as an AI"`} {
		if !strings.Contains(sys, want) {
			t.Errorf("system message %q does not say %q", sys, want)
		}
	}
	if req.OutputSchema != nil {
		t.Errorf("OutputSchema = %s, want none", req.OutputSchema)
	}
}

func TestRunTextHoldsTheTextToValidatorsToo(t *testing.T) {
	calm := enforce.NewValidator("calm", func(_ context.Context, text string, _ enforce.Try) ([]enforce.Issue, error) {
		if strings.Contains(text, "!") {
			return []enforce.Issue{{Message: "no exclamation marks"}}, nil
		}
		return nil, nil
	})
	m := agenttest.NewModel(t, agenttest.Reply("Paris is sunny!"), agenttest.Reply("Paris is sunny."))
	got, res, err := agent.RunText(t.Context(), agent.New(m, agent.WithOutputSchema(tweet(t)), agent.WithValidators(calm), agent.WithOutputRetries(1)), "?")
	if err != nil || got != "Paris is sunny." {
		t.Fatalf("text %q, %v", got, err)
	}
	if row := res.Attempts[0]; row.Error != "no exclamation marks" || row.Outcome != enforce.OutcomeRetried {
		t.Errorf("first row %+v", row)
	}
}

func TestRunTextFailsAsJSONAnswersDo(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply("London is grey."))
	_, res, err := agent.RunText(t.Context(), agent.New(m, agent.WithOutputSchema(tweet(t)), agent.WithOutputRetries(0)), "?")
	var oe *enforce.OutputError
	if !errors.As(err, &oe) || !errors.Is(err, enforce.ErrExhausted) || oe.Output != "London is grey." || res.Attempts[0].Outcome != enforce.OutcomeExhausted {
		t.Errorf("err %v, rows %+v", err, res.Attempts)
	}
}

func TestRunTextRefusesWhatATextCannotBe(t *testing.T) {
	m := agenttest.NewModel(t)
	if _, _, err := agent.RunText(t.Context(), agent.New(m, agent.WithOutputSchema(tweet(t)), agent.WithOutputTool("answer")), "?"); !errors.Is(err, agent.ErrInvalidOption) {
		t.Errorf("with an output tool: %v, want ErrInvalidOption", err)
	}
	if _, _, err := agent.RunText(t.Context(), agent.New(m, agent.WithOutputSchema(sentiment(t))), "?"); !errors.Is(err, agent.ErrInvalidOption) {
		t.Errorf("with a choice: %v, want ErrInvalidOption", err)
	}
}

func TestRunTextUnderAutoOutputModeIsPrompted(t *testing.T) {
	m := &reporting{Model: agenttest.NewModel(t, agenttest.Reply("Rain in Paris.")), modes: agent.Modes{Native: true, Tools: true}}
	got, res, err := agent.RunText(t.Context(), agent.New(m, agent.WithOutputSchema(tweet(t)), agent.WithAutoOutputMode(answerTool), agent.WithOutputRetries(1)), "Weather?")
	if err != nil || got != "Rain in Paris." {
		t.Fatalf("RunText = %q, %v", got, err)
	}
	if mode := modeSent(m.Requests()[0]); mode != agent.ModePrompted || res.Attempts[0].Mode != string(agent.ModePrompted) {
		t.Errorf("sent %s, row mode %q; want prompted: a text has no schema to send", mode, res.Attempts[0].Mode)
	}
}
