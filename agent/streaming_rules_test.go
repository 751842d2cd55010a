package agent_test

import (
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

func plainText(t testing.TB) *enforce.Schema {
	t.Helper()
	s, err := enforce.Text(enforce.MaxLength(200))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRunTextCutsAnAnswerWhereAForbiddenWordSplitAcrossChunksIsWhole(t *testing.T) {
	first := "Honestly, try Globex, they are cheaper than anyone."
	m := agenttest.NewStreamingModel(t,
		agenttest.Reply(first).InChunks(4), // "Globex" is split across chunks
		agenttest.Reply("We are the cheapest.").InChunks(4))
	a := agent.New(m, agent.WithOutputSchema(plainText(t)), agent.WithOutputRetries(2),
		agent.WithValidators(enforce.ForbiddenWords("competitors", "Globex")))
	got, res, err := agent.RunText(t.Context(), a, "Who is cheapest?")
	if err != nil {
		t.Fatal(err)
	}
	if got != "We are the cheapest." {
		t.Errorf("text %q", got)
	}
	// The comma after the word is the byte that shows it whole.
	at := strings.Index(first, "Globex") + len("Globex,")
	row := res.Attempts[0]
	if row.Outcome != enforce.OutcomeRetried || row.Stage != enforce.StageSchemaValidate || row.Cut == nil || row.Cut.Bytes != at {
		t.Fatalf("first row %+v (cut %+v), want retried at schema-validate, cut after %d bytes", row, row.Cut, at)
	}
	if row.Error != `forbidden word "Globex"` {
		t.Errorf("first row's error %q, want the rule's issue", row.Error)
	}
	if kept := res.Messages[2].Content; kept != first[:at] {
		t.Errorf("the conversation keeps %q, want the answer up to the cut", kept)
	}
	if c := m.Consumed()[0]; c.Chunks >= c.TotalChunks {
		t.Errorf("read %d of %d chunks: the answer was not cut", c.Chunks, c.TotalChunks)
	}
}

func TestRunTextDoesNotCutAWordThatGoesOnIntoALongerOne(t *testing.T) {
	m := agenttest.NewStreamingModel(t, agenttest.Reply("Globexy and Globex5 are fine.").InChunks(3))
	a := agent.New(m, agent.WithOutputSchema(plainText(t)), agent.WithOutputRetries(2),
		agent.WithValidators(enforce.ForbiddenWords("competitors", "Globex")))
	got, res, err := agent.RunText(t.Context(), a, "Name two products.")
	if err != nil {
		t.Fatal(err)
	}
	if got != "Globexy and Globex5 are fine." || len(res.Attempts) != 1 || res.Attempts[0].Cut != nil {
		t.Errorf("text %q, rows %+v: want the answer passed whole", got, res.Attempts)
	}
}

func TestRunTypedStreamCutsAJSONAnswerAtAForbiddenWord(t *testing.T) {
	first := `{"city":"Paris","stops":["Globex HQ","Orsay"],"days":3}`
	m := agenttest.NewStreamingModel(t,
		agenttest.Reply(first).InChunks(4), // "Globex" is split across chunks
		agenttest.Reply(trip).InChunks(4))
	a := agent.New(m, agent.WithOutputRetries(2), agent.WithValidators(enforce.ForbiddenWords("competitors", "Globex")))
	s := agent.RunTypedStream[Trip](t.Context(), a, "Plan a trip")
	ps := collect(s)
	_, res, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	// The space after the word is the byte that shows it whole.
	at := strings.Index(first, "Globex") + len("Globex ")
	row := res.Attempts[0]
	if row.Outcome != enforce.OutcomeRetried || row.Cut == nil || row.Cut.Bytes != at || row.Path != "/stops/0" || row.Error != `forbidden word "Globex"` {
		t.Fatalf("first row %+v (cut %+v), want retried, cut after %d bytes with the rule's issue at /stops/0", row, row.Cut, at)
	}
	if c := m.Consumed()[0]; c.Chunks >= c.TotalChunks {
		t.Errorf("read %d of %d chunks: the answer was not cut", c.Chunks, c.TotalChunks)
	}
	for _, p := range ps {
		if p.Attempt == 1 && len(p.Value.Stops) > 0 && strings.HasPrefix(p.Value.Stops[0], "Globex ") {
			t.Errorf("a partial %+v shows the stop past the byte the rule refused", p)
		}
	}
}

func TestRunTypedStreamShowsNoPartialOfAWholeReplyARuleRefused(t *testing.T) {
	first := `{"city":"Paris","stops":["Globex HQ","Orsay"],"days":3}`
	// One chunk that says why the reply ended: it came whole, and is
	// judged whole rather than cut.
	m := agenttest.NewStreamingModel(t, agenttest.Chunks(agent.Chunk{Text: first, Stop: agent.StopComplete}), agenttest.Reply(trip))
	a := agent.New(m, agent.WithOutputRetries(2), agent.WithValidators(enforce.ForbiddenWords("competitors", "Globex")))
	s := agent.RunTypedStream[Trip](t.Context(), a, "Plan a trip")
	for p := range s.Partials() {
		if p.Attempt == 1 && len(p.Value.Stops) > 0 && strings.HasPrefix(p.Value.Stops[0], "Globex ") {
			t.Errorf("a partial %+v shows the stop past the byte the rule refused", p)
		}
	}
	if _, res, err := s.Result(); err != nil || len(res.Attempts) != 2 {
		t.Fatalf("err %v, rows %+v: want the answer retried once", err, res.Attempts)
	}
}
