// early-abort: a model that streams its answers, judged while they
// arrive. The first answer opens with prose and is stopped at its first
// byte; the second goes wrong half-way (an item of the wrong type) and is
// stopped at that item's first byte; each time the corrective turn goes
// out at once. Meanwhile the typed value is shown as it forms, member by
// member, starting over when an answer is retried. The model is
// scripted: no network, no keys.
//
//	go run ./examples/early-abort
package main

import (
	"context"
	"fmt"
	"io"
	"iter"
	"os"
	"sync"

	"github.com/enforcer-go/enforcer/agent"
)

// Trip is the output contract.
type Trip struct {
	City  string   `json:"city"`
	Stops []string `json:"stops"`
	Days  int      `json:"days"`
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// scripted streams each reply in chunks of 6 bytes, as a provider streams
// tokens, and counts the bytes it was asked for before the reader stopped.
type scripted struct {
	mu      sync.Mutex
	replies []string
	sent    []int
}

func (m *scripted) Generate(context.Context, agent.Request) (agent.Response, error) {
	panic("a model that streams is streamed")
}

func (m *scripted) GenerateStream(ctx context.Context, _ agent.Request) iter.Seq2[agent.Chunk, error] {
	m.mu.Lock()
	defer m.mu.Unlock()
	reply := m.replies[len(m.sent)]
	m.sent = append(m.sent, 0)
	n := len(m.sent) - 1
	return func(yield func(agent.Chunk, error) bool) {
		for i := 0; i < len(reply); i += 6 {
			if err := ctx.Err(); err != nil {
				yield(agent.Chunk{}, err) // the reader cancelled: the connection closes
				return
			}
			chunk := reply[i:min(i+6, len(reply))]
			m.mu.Lock()
			m.sent[n] += len(chunk)
			m.mu.Unlock()
			if !yield(agent.Chunk{Text: chunk}, nil) {
				return // the reader stopped: stop writing
			}
		}
		yield(agent.Chunk{Stop: agent.StopComplete}, nil)
	}
}

func run(ctx context.Context, out io.Writer) error {
	model := &scripted{replies: []string{
		`Sure! Here is your trip: {"city":"Paris","stops":["Louvre","Orsay"],"days":3}`,
		`{"city":"Paris","stops":["Louvre",true,"Orsay"],"days":3}`,
		`{"city":"Paris","stops":["Louvre","Orsay"],"days":3}`,
	}}
	a := agent.New(model, agent.WithOutputRetries(2))

	s := agent.RunTypedStream[Trip](ctx, a, "Plan two days in Paris")
	var shown Trip
	settled := -1
	for p := range s.Partials() {
		if p.Restart {
			fmt.Fprintln(out, "(a retried attempt: the value starts over)")
		}
		if fmt.Sprint(p.Value) == fmt.Sprint(shown) && len(p.Settled) == settled {
			continue
		}
		shown, settled = p.Value, len(p.Settled)
		fmt.Fprintf(out, "attempt %d forming: %+v settled %q\n", p.Attempt, p.Value, p.Settled)
	}
	trip, res, err := s.Result()
	if err != nil {
		return err
	}

	fmt.Fprintln(out)
	for i, r := range res.Attempts {
		line := fmt.Sprintf("attempt %d: %s", r.Attempt, r.Outcome)
		if r.Cut != nil {
			line += fmt.Sprintf(" — cut at %s %q after %d of %d bytes: %s",
				r.Stage, r.Path, r.Cut.Bytes, len(model.replies[i]), r.Error)
		}
		fmt.Fprintln(out, line)
	}
	sent, total := 0, 0
	for i, n := range model.sent {
		sent, total = sent+n, total+len(model.replies[i])
	}
	fmt.Fprintf(out, "the model wrote %d of the %d bytes its replies would have taken\n", sent, total)
	fmt.Fprintf(out, "the conversation keeps the cut answers: %q, %q\n", res.Messages[2].Content, res.Messages[4].Content)
	fmt.Fprintf(out, "result: %+v\n", trip)
	return nil
}
