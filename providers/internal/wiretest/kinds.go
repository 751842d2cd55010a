package wiretest

import (
	"context"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// The scenarios below run the output kinds read from a model's text: a
// choice of labels (enforce.Choice) and a text held to rules
// (enforce.Text).

// Sentiment is the label type of the choice scenarios.
type Sentiment string

// sentiment is the choice the scenarios ask for.
func sentiment(t *testing.T) *enforce.Schema {
	t.Helper()
	s, err := enforce.Choice(
		enforce.Label{Name: "positive", Description: "the review is favourable"},
		enforce.Label{Name: "negative", Description: "the review is unfavourable"},
		enforce.Label{Name: "neutral"},
	)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// system is the text of the request's system prompt.
func (s Sent) system() string {
	var b strings.Builder
	for _, m := range s.Messages {
		if m.Role == "system" {
			for _, p := range m.Parts {
				b.WriteString(p.Text)
			}
		}
	}
	return b.String()
}

// ChoiceThroughTheWire checks a choice in prompted output: the request
// lists the labels with their descriptions in its system prompt and
// sends no native format; near (a reply of the text "Positive.") is
// corrected with a user message naming the labels, and the run passes
// on label (a reply of "positive"); with enforce.RepairLabel near passes
// at once, its row naming the repair.
func ChoiceThroughTheWire(t *testing.T, a Adapter, near, label Reply) {
	t.Run("a near-miss is corrected", func(t *testing.T) {
		srv := a.Server(t, near, label)
		ag := agent.New(a.Model(t, srv), agent.WithOutputSchema(sentiment(t)), agent.WithOutputRetries(1))
		got, res, err := agent.RunChoice[Sentiment](context.Background(), ag, "Great food, would return.")
		if err != nil {
			t.Fatal(err)
		}
		if got != "positive" || len(res.Attempts) != 2 || res.Attempts[0].Outcome != enforce.OutcomeRetried || res.Attempts[0].Kind != enforce.KindChoice {
			t.Fatalf("label %q, rows %+v; want positive after a retried near-miss", got, res.Attempts)
		}
		first := a.Sent(t, srv, 0)
		if sys := first.system(); !strings.Contains(sys, `- "positive": the review is favourable`) || !strings.Contains(sys, `- "neutral"`) {
			t.Errorf("system prompt %q, want the labels listed", sys)
		}
		if first.Format != nil {
			t.Errorf("output format = %s, want none in prompted output", first.Format)
		}
		second := a.Sent(t, srv, 1)
		last := second.Last(t)
		if got := last.Only(t, "text").Text; last.Role != "user" || !strings.Contains(got, `The labels are: "positive", "negative", "neutral".`) {
			t.Errorf("last message %s %q, want the user's correction naming the labels", last.Role, got)
		}
	})
	t.Run("a near-miss is mended with the repair", func(t *testing.T) {
		srv := a.Server(t, near)
		ag := agent.New(a.Model(t, srv), agent.WithOutputSchema(sentiment(t)), agent.WithOutputRetries(1), agent.WithRepairs(enforce.RepairLabel))
		got, res, err := agent.RunChoice[Sentiment](context.Background(), ag, "Great food, would return.")
		if err != nil {
			t.Fatal(err)
		}
		if got != "positive" || len(res.Attempts) != 1 || res.Attempts[0].Repaired != enforce.RepairLabel {
			t.Errorf("label %q, rows %+v; want positive at once, mended", got, res.Attempts)
		}
	})
}

// ChoiceOutputTool checks a choice whose answer is a call of the output
// tool classify: its parameters are the object form with the labels as
// an enum; wrong (a call, its wire ID id, of {"label": "pos"}) fails at
// /label and is corrected as that call's result; the run passes on
// right ({"label": "negative"}).
func ChoiceOutputTool(t *testing.T, a Adapter, wrong, right Reply, id string) {
	srv := a.Server(t, wrong, right)
	ag := agent.New(a.Model(t, srv), agent.WithOutputSchema(sentiment(t)), agent.WithOutputTool("classify"), agent.WithOutputRetries(1))
	got, res, err := agent.RunChoice[Sentiment](context.Background(), ag, "Cold food, rude staff.")
	if err != nil {
		t.Fatal(err)
	}
	if got != "negative" || len(res.Attempts) != 2 || res.Attempts[0].Path != "/label" {
		t.Fatalf("label %q, rows %+v; want negative after a failure at /label", got, res.Attempts)
	}
	first := a.Sent(t, srv, 0)
	if len(first.Tools) != 1 || first.Tools[0].Name != "classify" || !strings.Contains(string(first.Tools[0].Schema), `"positive","negative","neutral"`) {
		t.Fatalf("tools = %+v, want classify with the labels as an enum", first.Tools)
	}
	next := a.Sent(t, srv, 1)
	if text := next.Last(t).Result(t).Text; !strings.Contains(text, `Call the tool "classify"`) || !strings.Contains(text, `"positive", "negative", "neutral"`) {
		t.Errorf("correction = %q, want the call's result naming the labels", text)
	}
}

// ChoiceNative checks a choice in a native mode (native, the adapter with
// its native option): the format sent holds the labels as an enum, and
// answer (the JSON object {"label": "neutral"}) passes.
func ChoiceNative(t *testing.T, native Adapter, answer Reply) {
	srv := native.Server(t, answer)
	ag := agent.New(native.Model(t, srv), agent.WithOutputSchema(sentiment(t)), agent.WithOutputRetries(1))
	got, res, err := agent.RunChoice[Sentiment](context.Background(), ag, "It was food.")
	if err != nil {
		t.Fatal(err)
	}
	if got != "neutral" || len(res.Attempts) != 1 || res.Attempts[0].Outcome != enforce.OutcomePassed {
		t.Errorf("label %q, rows %+v; want neutral at once", got, res.Attempts)
	}
	if f := string(native.Sent(t, srv, 0).Format); !strings.Contains(f, `"positive","negative","neutral"`) || !strings.Contains(f, `label`) {
		t.Errorf("output format = %s, want the object form with the labels as an enum", f)
	}
}

// TextCutThroughTheWire checks a text held to rules (at most 200
// characters, never "as an AI"): the request sends no native format and
// states the rules; a streamed answer (opening, events of the
// provider's stream whose text "Well, as an AI, I…" splits "as an AI"
// across events, kept open) is cut at the byte that completes the
// substring, the model's connection closed, and corrected; the run
// passes on answer (a reply of the text "Sunny in Paris.").
func TextCutThroughTheWire(t *testing.T, a Adapter, opening []string, answer Reply) {
	gone := make(chan struct{})
	srv := a.Server(t, Reply{Status: 200, Gone: gone, Events: opening}, answer)
	rules, err := enforce.Text(enforce.MaxLength(200), enforce.MustNotContain("as an AI"))
	if err != nil {
		t.Fatal(err)
	}
	ag := agent.New(a.Model(t, srv), agent.WithOutputSchema(rules), agent.WithOutputRetries(1))
	got, res, err := agent.RunText(context.Background(), ag, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	WaitGone(t, gone)
	if got != "Sunny in Paris." {
		t.Errorf("text = %q", got)
	}
	row := res.Attempts[0]
	if row.Kind != enforce.KindText || row.Stage != enforce.StageSchemaValidate || row.Cut == nil || row.Cut.Bytes != len("Well, as an AI") {
		t.Fatalf("first row = %+v, want a text cut after %d bytes", row, len("Well, as an AI"))
	}
	first := a.Sent(t, srv, 0)
	if first.Format != nil || !strings.Contains(first.system(), `it does not contain "as an AI"`) {
		t.Errorf("first request: format %s, system %q; want no format and the rules stated", first.Format, first.system())
	}
	second := a.Sent(t, srv, 1)
	n := len(second.Messages)
	if n < 2 || second.Messages[n-2].Only(t, "text").Text != "Well, as an AI" {
		t.Fatalf("second request = %v, want the answer up to the cut, then the correction", second.Shape())
	}
	if c := second.Messages[n-1].Only(t, "text").Text; !strings.Contains(c, "Reply with only the corrected text") {
		t.Errorf("correction = %q", c)
	}
}
