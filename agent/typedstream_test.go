package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/events"
)

// Trip is a contract with a nested list, to watch form.
type Trip struct {
	City  string   `json:"city"`
	Stops []string `json:"stops"`
	Days  int      `json:"days"`
}

const trip = `{"city":"Paris","stops":["Louvre","Orsay"],"days":3}`

func collect[T any](s *agent.TypedStream[T]) []agent.Partial[T] {
	var ps []agent.Partial[T]
	for p := range s.Partials() {
		ps = append(ps, p)
	}
	return ps
}

func TestRunTypedStreamShowsTheValueAsItForms(t *testing.T) {
	m := agenttest.NewStreamingModel(t, agenttest.Reply(trip).InChunks(4))
	s := agent.RunTypedStream[Trip](t.Context(), agent.New(m), "Plan a trip")
	ps := collect(s)
	v, res, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	if want := (Trip{City: "Paris", Stops: []string{"Louvre", "Orsay"}, Days: 3}); !reflect.DeepEqual(v, want) {
		t.Errorf("final value = %+v, want %+v", v, want)
	}
	if res.Output != trip {
		t.Errorf("Output = %q, want %q", res.Output, trip)
	}
	if len(ps) < 5 {
		t.Fatalf("%d partials, want one as each piece arrives", len(ps))
	}

	t.Run("the value grows, a string cut where the text is", func(t *testing.T) {
		var cities []string
		for _, p := range ps {
			if p.Attempt != 1 || p.Restart {
				t.Errorf("partial %+v: want attempt 1, no restart", p)
			}
			if len(cities) == 0 || cities[len(cities)-1] != p.Value.City {
				cities = append(cities, p.Value.City)
			}
		}
		// In 4-byte chunks: {"ci ty": "Par is", …
		if want := []string{"", "Par", "Paris"}; !slices.Equal(cities, want) {
			t.Errorf("cities shown = %q, want %q", cities, want)
		}
		last := ps[len(ps)-1].Value
		if !reflect.DeepEqual(last.Stops, []string{"Louvre", "Orsay"}) {
			t.Errorf("last partial = %+v, want both stops", last)
		}
	})
	t.Run("members settle once whole and valid, the list after its items", func(t *testing.T) {
		settled := ps[len(ps)-1].Settled
		for _, want := range []string{"/city", "/stops/0", "/stops/1", "/stops"} {
			if !slices.Contains(settled, want) {
				t.Errorf("settled = %q, want %q among them", settled, want)
			}
		}
		if i, j := slices.Index(settled, "/stops/1"), slices.Index(settled, "/stops"); i > j {
			t.Errorf("settled = %q: /stops before its last item", settled)
		}
		for _, p := range ps {
			if p.Value.City != "Paris" && slices.Contains(p.Settled, "/city") {
				t.Errorf("partial %+v: /city settled before it was whole", p)
			}
		}
	})
}

func TestRunTypedStreamRestartsOnARetriedAttempt(t *testing.T) {
	t.Run("after a corrective turn", func(t *testing.T) {
		m := agenttest.NewStreamingModel(t,
			agenttest.Reply(`{"city":"Rome","stops":[]}`).InChunks(6), // days missing: fails at the end
			agenttest.Reply(trip).InChunks(6),
		)
		s := agent.RunTypedStream[Trip](t.Context(), agent.New(m, agent.WithOutputRetries(1)), "Plan a trip")
		ps := collect(s)
		restarts := 0
		for i, p := range ps {
			if p.Restart {
				restarts++
				if p.Attempt != 2 || ps[i-1].Attempt != 1 || ps[i-1].Value.City != "Rome" {
					t.Errorf("restart at partial %d: %+v after %+v, want attempt 2 after Rome's", i, p, ps[i-1])
				}
				if p.Value.City == "Rome" || slices.Contains(p.Settled, "/city") && p.Value.City != "Paris" {
					t.Errorf("restarted value %+v carries the old attempt's", p)
				}
			}
		}
		if restarts != 1 {
			t.Errorf("%d restarts, want 1", restarts)
		}
		if v, res, err := s.Result(); err != nil || v.City != "Paris" || len(res.Attempts) != 2 {
			t.Errorf("Result = %+v, %d rows, %v; want Paris after two rows", v, len(res.Attempts), err)
		}
	})
	t.Run("after a model call retried for a broken stream", func(t *testing.T) {
		lost := &agent.ProviderError{Kind: events.KindConnection}
		m := agenttest.NewStreamingModel(t, agenttest.Reply(trip).InChunks(6).FailAfter(4, lost), agenttest.Reply(trip).InChunks(6))
		a := agent.New(m, agent.WithModelRetry(agent.RetryPolicy{Backoff: zeroDelay}))
		ps := collect(agent.RunTypedStream[Trip](t.Context(), a, "Plan a trip"))
		if i := slices.IndexFunc(ps, func(p agent.Partial[Trip]) bool { return p.Restart }); i < 1 || ps[i].Attempt != 1 {
			t.Errorf("partials = %+v, want a restart that keeps attempt 1: no row was written", ps)
		}
	})
}

// returning is a StreamingModel whose reply's iterator closes returned
// when it returns: the break out of Partials leaves it to return on its
// own goroutine, and a test that reads what the model consumed waits for
// that, not for a count of goroutines (which others' goroutines, exiting
// meanwhile, can bring down first).
type returning struct {
	*agenttest.StreamingModel
	returned chan struct{}
}

func (m returning) GenerateStream(ctx context.Context, req agent.Request) iter.Seq2[agent.Chunk, error] {
	return func(yield func(agent.Chunk, error) bool) {
		defer close(m.returned)
		m.StreamingModel.GenerateStream(ctx, req)(yield)
	}
}

func TestBreakingOutOfPartialsEndsTheRun(t *testing.T) {
	before := runtime.NumGoroutine()
	m := returning{agenttest.NewStreamingModel(t, agenttest.Reply(trip).InChunks(4)), make(chan struct{})}
	s := agent.RunTypedStream[Trip](t.Context(), agent.New(m), "Plan a trip")
	n := 0
	for range s.Partials() {
		if n++; n == 2 {
			break
		}
	}
	_, res, err := s.Result()
	if !errors.Is(err, agent.ErrStoppedReading) || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want ErrStoppedReading, a context.Canceled", err)
	}
	if res == nil || res.Output != "" {
		t.Errorf("Result = %+v, want one with no output", res)
	}
	// The model's stream is read on a goroutine of its own (the test's
	// context can end), which the break leaves to return.
	<-m.returned
	after := settledGoroutines(before)
	if c := m.Consumed()[0]; !c.Stopped || !c.Cancelled || c.Bytes >= c.TotalBytes {
		t.Errorf("consumed %+v, want the model call cancelled part-way", c)
	}
	if after > before {
		t.Errorf("%d goroutines after the break, %d before", after, before)
	}
	for range s.Partials() {
		t.Error("a second range yielded a partial")
	}
}

func TestRunTypedStreamWithoutStreaming(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply(trip))
	s := agent.RunTypedStream[Trip](t.Context(), agent.New(m), "Plan a trip")
	if ps := collect(s); len(ps) != 0 {
		t.Errorf("%d partials from a model that does not stream, want none", len(ps))
	}
	if v, _, err := s.Result(); err != nil || v.Days != 3 {
		t.Errorf("Result = %+v, %v; want the trip", v, err)
	}
}

func TestResultAloneRunsTheStream(t *testing.T) {
	m := agenttest.NewStreamingModel(t, agenttest.Reply(trip).InChunks(4))
	s := agent.RunTypedStream[Trip](t.Context(), agent.New(m), "Plan a trip")
	if v, _, err := s.Result(); err != nil || v.City != "Paris" {
		t.Errorf("Result = %+v, %v; want the trip", v, err)
	}
	if ps := collect(s); len(ps) != 0 {
		t.Errorf("Partials after Result yielded %d, want none", len(ps))
	}
}

func TestAPanicInTheLoopBodyReachesTheCaller(t *testing.T) {
	before := runtime.NumGoroutine()
	m := returning{agenttest.NewStreamingModel(t, agenttest.Reply(trip).InChunks(4)), make(chan struct{})}
	s := agent.RunTypedStream[Trip](t.Context(), agent.New(m), "Plan a trip")
	defer func() {
		if r := recover(); r != "body on fire" {
			t.Errorf("recovered %v, want the loop body's panic", r)
		}
		if _, _, err := s.Result(); !errors.Is(err, agent.ErrStoppedReading) {
			t.Errorf("Result err = %v, want ErrStoppedReading: the run stopped", err)
		}
		<-m.returned // the model's stream returns on its own goroutine
		if after := settledGoroutines(before); after > before {
			t.Errorf("%d goroutines after the model returned, %d before", after, before)
		}
		if c := m.Consumed()[0]; !c.Cancelled {
			t.Errorf("consumed %+v, want the call cancelled", c)
		}
	}()
	for range s.Partials() {
		panic("body on fire")
	}
}

// Building a partial costs about the answer's length, so one after every
// chunk of a long answer would cost time quadratic in it. Past a budget,
// partials come each time the answer has grown by a fraction: the work
// (here, the partial values' length) stays linear, and partials still
// come to near the end.
func TestPartialsOfALongAnswerCostLinearTime(t *testing.T) {
	stops := make([]string, 3000)
	for i := range stops {
		stops[i] = fmt.Sprintf("stop %04d", i)
	}
	raw, err := json.Marshal(Trip{City: "Paris", Stops: stops, Days: 3})
	if err != nil {
		t.Fatal(err)
	}
	answer := string(raw)
	m := agenttest.NewStreamingModel(t, agenttest.Reply(answer).InChunks(8))
	s := agent.RunTypedStream[Trip](t.Context(), agent.New(m), "Plan a long trip")
	work, n, last := 0, 0, Trip{}
	for p := range s.Partials() {
		n++
		b, _ := json.Marshal(p.Value)
		work += len(b)
		last = p.Value
	}
	v, _, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	chunks := len(answer) / 8
	if limit := 20*len(answer) + 2<<20; work > limit {
		t.Errorf("%d partials of a %d-byte answer in %d chunks came to %d bytes, want at most %d", n, len(answer), chunks, work, limit)
	}
	if !reflect.DeepEqual(last, v) {
		t.Errorf("the last partial has %d of %d stops and %d days, want the whole answer, as Result gives it", len(last.Stops), len(stops), last.Days)
	}
}

// Until the answer is 4 KiB long, a partial comes after every chunk that
// shows something new, however small the chunks: the rule is the
// answer's length, not the work spent on partials so far.
func TestPartialsComeAfterEveryChunkOfAShortAnswer(t *testing.T) {
	city := strings.Repeat("x", 4<<10-64)
	answer := `{"city":"` + city + `","stops":[],"days":3}`
	const chunk = 4 // about a token
	m := agenttest.NewStreamingModel(t, agenttest.Reply(answer).InChunks(chunk))
	s := agent.RunTypedStream[Trip](t.Context(), agent.New(m), "Plan a trip")
	var shown []int // the city's length in each partial
	for p := range s.Partials() {
		shown = append(shown, len(p.Value.City))
	}
	if _, _, err := s.Result(); err != nil {
		t.Fatal(err)
	}
	// Each chunk inside the city's string shows it longer by the chunk:
	// after k chunks, the city holds the first k·chunk bytes but those
	// of its prefix.
	prefix := len(`{"city":"`)
	for k := prefix/chunk + 1; k*chunk < prefix+len(city); k++ {
		if !slices.Contains(shown, k*chunk-prefix) {
			t.Fatalf("no partial shows the city %d bytes long (after chunk %d); %d partials, the last with %d bytes",
				k*chunk-prefix, k, len(shown), shown[len(shown)-1])
		}
	}
}
