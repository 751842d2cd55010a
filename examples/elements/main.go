// elements: a model that streams a list, its elements taken one by one as
// each closes, whole and passing the contract, while the rest of the
// answer is still on its way. The first answer goes wrong at its third
// element (a quantity of 0): it is cut at the byte that ends that number
// and the corrective turn goes out at once; the consumer is told that
// the two elements it was given are void before the second answer's
// first element. The model is scripted: no network, no keys.
//
//	go run ./examples/elements
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

// Order is the output contract: a list beside another member.
type Order struct {
	Lines []Line `json:"lines"`
	Note  string `json:"note"`
}

// Line is one element of the list.
type Line struct {
	Item string `json:"item"`
	Qty  int    `json:"qty" jsonschema:"minimum=1"`
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// scripted streams each reply in chunks of 8 bytes, as a provider streams
// tokens, and counts the bytes it has sent.
type scripted struct {
	mu      sync.Mutex
	replies []string
	sent    int // bytes of the current reply sent
	calls   int
}

func (m *scripted) Generate(context.Context, agent.Request) (agent.Response, error) {
	panic("a model that streams is streamed")
}

func (m *scripted) GenerateStream(ctx context.Context, _ agent.Request) iter.Seq2[agent.Chunk, error] {
	m.mu.Lock()
	defer m.mu.Unlock()
	reply := m.replies[m.calls]
	m.calls++
	m.sent = 0
	return func(yield func(agent.Chunk, error) bool) {
		for i := 0; i < len(reply); i += 8 {
			if err := ctx.Err(); err != nil {
				yield(agent.Chunk{}, err) // the reader cancelled: the connection closes
				return
			}
			chunk := reply[i:min(i+8, len(reply))]
			m.mu.Lock()
			m.sent += len(chunk)
			m.mu.Unlock()
			if !yield(agent.Chunk{Text: chunk}, nil) {
				return // the reader stopped: stop writing
			}
		}
		yield(agent.Chunk{Stop: agent.StopComplete}, nil)
	}
}

func (m *scripted) bytesSent() (int, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sent, len(m.replies[m.calls-1])
}

func run(ctx context.Context, out io.Writer) error {
	model := &scripted{replies: []string{
		`{"lines":[{"item":"tea","qty":2},{"item":"milk","qty":1},{"item":"jam","qty":0},{"item":"bread","qty":1}],"note":"before noon"}`,
		`{"lines":[{"item":"tea","qty":2},{"item":"milk","qty":1},{"item":"jam","qty":1}],"note":"before noon"}`,
	}}
	a := agent.New(model, agent.WithOutputRetries(1))

	s := agent.RunElements[Order, Line](ctx, a, "What should I buy?", "/lines")
	for e := range s.Elements() {
		if e.Restart {
			fmt.Fprintf(out, "attempt %d begins: the lines shown before are void\n", e.Attempt)
			continue
		}
		sent, total := model.bytesSent()
		fmt.Fprintf(out, "attempt %d line %d: %+v (the model had sent %d of %d bytes)\n", e.Attempt, e.Index, e.Value, sent, total)
	}
	order, res, err := s.Result()
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "\nattempt ledger:")
	for _, row := range res.Attempts {
		fmt.Fprintf(out, "  %d %s", row.Attempt, row.Outcome)
		if row.Stage != "" {
			fmt.Fprintf(out, " at %s %s", row.Stage, row.Path)
		}
		if row.Cut != nil {
			fmt.Fprintf(out, ", cut after %d bytes", row.Cut.Bytes)
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintf(out, "\nresult: %+v\n", order)
	return nil
}
