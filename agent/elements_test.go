package agent_test

import (
	"context"
	"errors"
	"iter"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/middleware"
)

// Order is an answer holding a list beside another member.
type Order struct {
	Items   []Line `json:"items"`
	Summary string `json:"summary"`
}

// Line is one element of an Order's items.
type Line struct {
	Name string `json:"name"`
	Qty  int    `json:"qty" jsonschema:"minimum=1"`
}

// seen is what a consumer of RunElements saw, one line per element:
// "attempt index name qty", or "attempt restart".
func seen(t *testing.T, seq iter.Seq[agent.Element[Line]]) []string {
	t.Helper()
	var out []string
	for e := range seq {
		if e.Restart {
			if e.Index != -1 {
				t.Errorf("a Restart with index %d, want -1", e.Index)
			}
			out = append(out, itoa(e.Attempt)+" restart")
			continue
		}
		out = append(out, itoa(e.Attempt)+" "+itoa(e.Index)+" "+e.Value.Name+" "+itoa(e.Value.Qty))
	}
	return out
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// countedChunks is a streaming model that sends one reply as these chunks and
// counts the chunks it has sent.
type countedChunks struct {
	chunks []string
	sent   int
}

func (m *countedChunks) Generate(context.Context, agent.Request) (agent.Response, error) {
	return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: strings.Join(m.chunks, "")}}, nil
}

func (m *countedChunks) GenerateStream(_ context.Context, _ agent.Request) iter.Seq2[agent.Chunk, error] {
	return func(yield func(agent.Chunk, error) bool) {
		for _, c := range m.chunks {
			m.sent++
			if !yield(agent.Chunk{Text: c}, nil) {
				return
			}
		}
	}
}

func TestRunElementsYieldsEachElementInTheChunkThatClosesIt(t *testing.T) {
	m := &countedChunks{chunks: []string{
		`{"summary":"two lines","items":[{"name":"tea","qty":1}`,
		`,{"name":"milk",`, `"qty":2}]`, `}`,
	}}
	s := agent.RunElements[Order, Line](t.Context(), agent.New(m), "List the order.", "/items")
	var at []int
	var got []Line
	for e := range s.Elements() {
		at, got = append(at, m.sent), append(got, e.Value)
	}
	if want := []int{1, 3}; !reflect.DeepEqual(at, want) {
		t.Errorf("elements yielded when %v chunks had been sent, want %v", at, want)
	}
	o, res, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	if want := []Line{{"tea", 1}, {"milk", 2}}; !reflect.DeepEqual(got, want) || !reflect.DeepEqual(o.Items, want) || o.Summary != "two lines" {
		t.Errorf("yielded %+v, Result %+v; want %+v", got, o, want)
	}
	if res.Attempts != nil {
		t.Errorf("rows %+v without WithOutputRetries", res.Attempts)
	}
}

func TestRunElementsAfterARetryAnnouncesTheNewAttemptBeforeItsElements(t *testing.T) {
	m := agenttest.NewStreamingModel(t,
		// The second line has no qty: the answer is cut at its '}'.
		agenttest.Reply(`{"items":[{"name":"tea","qty":1},{"name":"milk"},{"name":"jam","qty":3}],"summary":"s"}`).InChunks(8),
		agenttest.Reply(`{"items":[{"name":"tea","qty":1},{"name":"milk","qty":2}],"summary":"s"}`).InChunks(8),
	)
	s := agent.RunElements[Order, Line](t.Context(), agent.New(m, agent.WithOutputRetries(1)), "List the order.", "/items")
	got := seen(t, s.Elements())
	want := []string{"1 0 tea 1", "2 restart", "2 0 tea 1", "2 1 milk 2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("saw %q, want %q", got, want)
	}
	_, res, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Attempts) != 2 || res.Attempts[0].Outcome != enforce.OutcomeRetried || res.Attempts[0].Path != "/items/1/qty" ||
		res.Attempts[0].Cut == nil || res.Attempts[1].Outcome != enforce.OutcomePassed {
		t.Fatalf("rows = %+v, want the first answer cut at /items/1/qty and retried, then a pass", res.Attempts)
	}
	for _, row := range res.Attempts {
		if row.Kind != enforce.KindElements {
			t.Errorf("row %d kind = %q, want %q", row.Attempt, row.Kind, enforce.KindElements)
		}
	}
	if c := res.Messages[len(res.Messages)-2].Content; !strings.Contains(c, "/items/1/qty") {
		t.Errorf("corrective turn = %q, want it to name /items/1/qty", c)
	}
}

func TestRunElementsAnnouncesAtTheEndWhenThePassingAnswerHasFewerElements(t *testing.T) {
	m := agenttest.NewStreamingModel(t,
		// Passes element by element, then fails at its end: no summary.
		agenttest.Reply(`{"items":[{"name":"tea","qty":1}]}`).InChunks(5),
		agenttest.Reply(`{"items":[],"summary":"none left"}`).InChunks(5),
	)
	s := agent.RunElements[Order, Line](t.Context(), agent.New(m, agent.WithOutputRetries(1)), "List the order.", "/items")
	if got, want := seen(t, s.Elements()), []string{"1 0 tea 1", "2 restart"}; !reflect.DeepEqual(got, want) {
		t.Errorf("saw %q, want %q", got, want)
	}
	if o, _, err := s.Result(); err != nil || len(o.Items) != 0 {
		t.Errorf("Result = %+v, %v; want no items", o, err)
	}
}

func TestRunElementsFromAModelThatDoesNotStreamYieldsThemAtTheEnd(t *testing.T) {
	m := agenttest.NewModel(t,
		agenttest.Reply(`[{"name":"tea","qty":0}]`),
		agenttest.Reply(`[{"name":"tea","qty":1},{"name":"jam","qty":2}]`),
	)
	s := agent.RunElements[[]Line, Line](t.Context(), agent.New(m, agent.WithOutputRetries(1)), "List the lines.", "")
	if got, want := seen(t, s.Elements()), []string{"2 0 tea 1", "2 1 jam 2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("saw %q, want %q", got, want)
	}
	if lines, res, err := s.Result(); err != nil || len(lines) != 2 || len(res.Attempts) != 2 {
		t.Errorf("Result = %+v, %+v, %v", lines, res.Attempts, err)
	}
}

func TestRunElementsRestartsWhenAnActOutputStepRewroteAnElement(t *testing.T) {
	m := agenttest.NewStreamingModel(t, agenttest.Reply(`[{"name":"tea","qty":1},{"name":"jam","qty":2}]`).InChunks(4))
	shout := middleware.Middleware{Name: "shout", Output: func(_ context.Context, text string) (string, error) {
		return strings.Replace(text, "jam", "JAM", 1), nil
	}}
	s := agent.RunElements[[]Line, Line](t.Context(), agent.New(m, agent.WithMiddleware(shout)), "List the lines.", "")
	got := seen(t, s.Elements())
	want := []string{"1 0 tea 1", "1 1 jam 2", "1 restart", "1 0 tea 1", "1 1 JAM 2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("saw %q, want %q", got, want)
	}
}

func TestRunElementsEndsWhenTheConsumerStopsReading(t *testing.T) {
	m := returning{agenttest.NewStreamingModel(t, agenttest.Reply(`[{"name":"tea","qty":1},{"name":"jam","qty":2}]`).InChunks(4)), make(chan struct{})}
	s := agent.RunElements[[]Line, Line](t.Context(), agent.New(m), "List the lines.", "")
	n := 0
	for range s.Elements() {
		n++
		break
	}
	if _, _, err := s.Result(); n != 1 || !errors.Is(err, agent.ErrStoppedReading) {
		t.Errorf("after %d elements Result's error = %v, want ErrStoppedReading", n, err)
	}
	<-m.returned
	if c := m.Consumed()[0]; !c.Stopped || !c.Cancelled || c.Bytes >= c.TotalBytes {
		t.Errorf("consumed %+v, want the model call cancelled part-way", c)
	}
}

func TestRunElementsRefusesWhatIsNoJSONPointer(t *testing.T) {
	m := agenttest.NewModel(t)
	_, res, err := agent.RunElements[Order, Line](t.Context(), agent.New(m), "List the order.", "items").Result()
	if !errors.Is(err, agent.ErrInvalidOption) || res == nil {
		t.Errorf("Result = %v, %v; want ErrInvalidOption and a Result", res, err)
	}
}

func TestRunElementsRestartsAfterAModelCallRetriedForABrokenStream(t *testing.T) {
	lines := `[{"name":"tea","qty":1},{"name":"jam","qty":2}]`
	lost := &agent.ProviderError{Kind: events.KindConnection}
	m := agenttest.NewStreamingModel(t, agenttest.Reply(lines).InChunks(6).FailAfter(5, lost), agenttest.Reply(lines).InChunks(6))
	a := agent.New(m, agent.WithModelRetry(agent.RetryPolicy{Backoff: zeroDelay}))
	s := agent.RunElements[[]Line, Line](t.Context(), a, "List the lines.", "")
	// No row was written: the restart keeps attempt 1.
	if got, want := seen(t, s.Elements()), []string{"1 0 tea 1", "1 restart", "1 0 tea 1", "1 1 jam 2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("saw %q, want %q", got, want)
	}
	if _, _, err := s.Result(); err != nil {
		t.Fatal(err)
	}
}

func TestRunElementsWithoutRetriesAsksTheValidatorsOfAnElementAsItCloses(t *testing.T) {
	noJam := enforce.NewValidator("no-jam", func(_ context.Context, l Line, _ enforce.Try) ([]enforce.Issue, error) {
		if l.Name == "jam" {
			return []enforce.Issue{{Path: "/name", Message: "no jam today"}}, nil
		}
		return nil, nil
	}).At("/1")
	m := agenttest.NewStreamingModel(t, agenttest.Reply(`[{"name":"tea","qty":1},{"name":"jam","qty":2}]`).InChunks(4))
	s := agent.RunElements[[]Line, Line](t.Context(), agent.New(m, agent.WithValidators(noJam)), "List the lines.", "")
	if got, want := seen(t, s.Elements()), []string{"1 0 tea 1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("saw %q, want %q: the jam line is held back", got, want)
	}
	var oe *enforce.OutputError
	if _, _, err := s.Result(); !errors.As(err, &oe) || oe.Path != "/1/name" {
		t.Errorf("Result's error = %v, want the validator's issue at /1/name", err)
	}
}

func TestRunElementsRefusesAPointerToNoArrayBeforeTheModelIsCalled(t *testing.T) {
	for _, p := range []string{"/summary", "/items/0", "", "/nope", "/summary/x"} {
		m := agenttest.NewModel(t) // fails the test if it is called
		_, res, err := agent.RunElements[Order, Line](t.Context(), agent.New(m), "List the order.", p).Result()
		if !errors.Is(err, agent.ErrInvalidOption) || !errors.Is(err, enforce.ErrPointer) || res == nil {
			t.Errorf("RunElements at %q: error %v (a Result: %t); want ErrInvalidOption and ErrPointer, and a Result", p, err, res != nil)
			continue
		}
		if !strings.Contains(err.Error(), strconv.Quote(p)) {
			t.Errorf("RunElements at %q: %v does not name the pointer", p, err)
		}
	}
}
