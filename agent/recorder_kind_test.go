package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// frames is every frame of the turn recorded on s, one a line.
func frames(t *testing.T, s *events.Stream) []byte {
	t.Helper()
	_, ns := methods(t, s)
	var b bytes.Buffer
	for _, n := range ns {
		f, err := json.Marshal(n)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(f)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// ledgerEvents decodes the ledger events of a recorded turn.
func ledgerEvents(t *testing.T, s *events.Stream) (retries []events.SchemaRetry, exhausted []events.SchemaExhausted) {
	t.Helper()
	_, ns := methods(t, s)
	for _, n := range ns {
		ev, err := n.Event()
		if err != nil {
			t.Fatal(err)
		}
		switch ev := ev.(type) {
		case events.SchemaRetry:
			retries = append(retries, ev)
		case events.SchemaExhausted:
			exhausted = append(exhausted, ev)
		}
	}
	return retries, exhausted
}

// A JSON answer's ledger events say no kind and no member: its frames
// are the bytes they were before kinds were on the stream.
func TestAJSONRunsFramesAreUnchanged(t *testing.T) {
	s := newStream(t)
	m := agenttest.NewModel(t, agenttest.Reply(prose).WithUsage(120, 9), agenttest.Reply(missing).WithUsage(160, 12))
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1), agent.WithEvents(s),
		agent.WithClock(func() time.Time { return time.Unix(0, 0) }))
	if _, err := a.Run(agent.ContextWithTurnID(context.Background(), "turn-json"), "Weather in Paris?"); err == nil {
		t.Fatal("err = nil, want the second answer to fail")
	}
	got := frames(t, s)
	golden := filepath.Join("testdata", "json-run.golden.ndjson")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("frames differ from %s:\ngot:\n%s\nwant:\n%s", golden, got, want)
	}
}

func TestAUnionRunsLedgerEventsNameTheMemberTheAnswerChose(t *testing.T) {
	s := newStream(t)
	m := agenttest.NewModel(t, agenttest.Reply(`{"refund":{"order":"A1"}}`), agenttest.Reply(`{"escalation":{"team":"billing"}}`))
	a := agent.New(m, agent.WithOutputRetries(1), agent.WithEvents(s))
	if _, _, err := agent.RunUnion(t.Context(), a, "I was charged twice.", supportMembers()...); err == nil {
		t.Fatal("err = nil, want the second answer to fail")
	}
	retries, exhausted := ledgerEvents(t, s)
	if len(retries) != 1 || retries[0].Member != "refund" || retries[0].Path != "/refund/amount" || retries[0].Kind != "" {
		t.Errorf("output/schemaRetry = %+v, want member refund at /refund/amount, no kind", retries)
	}
	if len(exhausted) != 1 || exhausted[0].Member != "escalation" {
		t.Errorf("output/schemaExhausted = %+v, want member escalation", exhausted)
	}
}

func TestAChoiceRunsLedgerEventsSayTheKind(t *testing.T) {
	s := newStream(t)
	m := agenttest.NewModel(t, agenttest.Reply("pos"), agenttest.Reply("Positive sentiment"))
	a := agent.New(m, agent.WithOutputSchema(sentiment(t)), agent.WithOutputRetries(1), agent.WithEvents(s))
	if _, _, err := agent.RunChoice[Sentiment](t.Context(), a, "Great food."); err == nil {
		t.Fatal("err = nil, want the second answer to fail")
	}
	retries, exhausted := ledgerEvents(t, s)
	if len(retries) != 1 || retries[0].Kind != "choice" || retries[0].Member != "" {
		t.Errorf("output/schemaRetry = %+v, want kind choice, no member", retries)
	}
	if len(exhausted) != 1 || exhausted[0].Kind != "choice" {
		t.Errorf("output/schemaExhausted = %+v, want kind choice", exhausted)
	}
	_, ns := methods(t, s)
	if got, want := ns[2].Describe(0), "choice rejected (schema-validate) · asking again · last retry"; got != want {
		t.Errorf("the retry's line = %q, want %q", got, want)
	}
}

func TestAnElementsRunsLedgerEventsSayTheKind(t *testing.T) {
	type Line struct {
		Item string `json:"item"`
		Qty  int    `json:"qty" jsonschema:"minimum=1"`
	}
	type Basket struct {
		Lines []Line `json:"lines"`
	}
	schema, err := enforce.SchemaFor[Basket]()
	if err != nil {
		t.Fatal(err)
	}
	s := newStream(t)
	m := agenttest.NewModel(t, agenttest.Reply(`{"lines":[{"item":"tea","qty":0}]}`), agenttest.Reply(`{"lines":[{"item":"tea","qty":1}]}`))
	a := agent.New(m, agent.WithOutputSchema(schema), agent.WithOutputRetries(1), agent.WithEvents(s))
	st := agent.RunElements[Basket, Line](t.Context(), a, "Shopping?", "/lines")
	for range st.Elements() {
	}
	if _, _, err := st.Result(); err != nil {
		t.Fatal(err)
	}
	retries, _ := ledgerEvents(t, s)
	if len(retries) != 1 || retries[0].Kind != "elements" || retries[0].Path != "/lines/0/qty" {
		t.Errorf("output/schemaRetry = %+v, want kind elements at /lines/0/qty", retries)
	}
}
