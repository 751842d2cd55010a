// choice: a classifier's answer is one label of a set. The model
// answers "Positive." for positive, a near-miss: without the label
// repair no label begins with "P", so the answer is cut at its first
// byte and corrected with the labels named; with enforce.RepairLabel it
// passes on the first call, its row saying it was mended. Prose is cut
// at its first byte too. The model is scripted, and streams: no
// network, no keys.
//
//	go run ./examples/choice
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// Sentiment is the label type the caller gets.
type Sentiment string

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// scripted streams its replies in order, 4 bytes a chunk, and counts
// the chunks the reader took.
type scripted struct {
	replies []string
	calls   int
	chunks  []int
}

func (m *scripted) Generate(context.Context, agent.Request) (agent.Response, error) {
	panic("a model that streams is streamed")
}

func (m *scripted) GenerateStream(ctx context.Context, _ agent.Request) iter.Seq2[agent.Chunk, error] {
	reply := m.replies[m.calls]
	m.calls++
	m.chunks = append(m.chunks, 0)
	n := len(m.chunks) - 1
	return func(yield func(agent.Chunk, error) bool) {
		for i := 0; i < len(reply); i += 4 {
			if err := ctx.Err(); err != nil {
				yield(agent.Chunk{}, err)
				return
			}
			m.chunks[n]++
			if !yield(agent.Chunk{Text: reply[i:min(i+4, len(reply))]}, nil) {
				return
			}
		}
		yield(agent.Chunk{Stop: agent.StopComplete}, nil)
	}
}

func run(ctx context.Context, out io.Writer) error {
	sentiment, err := enforce.Choice(
		enforce.Label{Name: "positive", Description: "the reviewer liked it"},
		enforce.Label{Name: "negative", Description: "the reviewer did not"},
		enforce.Label{Name: "mixed", Description: "some of each"},
	)
	if err != nil {
		return err
	}
	for _, c := range []struct {
		name    string
		replies []string
		repairs enforce.Repairs
	}{
		{"a near-miss, no repair", []string{"Positive.", "positive"}, 0},
		{"a near-miss, RepairLabel", []string{"Positive."}, enforce.RepairLabel},
		{"prose, streamed", []string{"The reviewer seems happy: positive.", "positive"}, 0},
	} {
		model := &scripted{replies: c.replies}
		a := agent.New(model, agent.WithOutputSchema(sentiment), agent.WithOutputRetries(2), agent.WithRepairs(c.repairs))
		label, res, err := agent.RunChoice[Sentiment](ctx, a, "Review: great food, slow service, would return.")
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%s: %s after %d model call(s)\n", c.name, label, model.calls)
		for _, r := range res.Attempts {
			r.LatencyMs = 0 // the clock's, not the script's
			row, err := json.Marshal(r)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "  row: %s\n", row)
		}
		if len(res.Attempts) > 1 {
			fmt.Fprintf(out, "  the correction names the labels: %s", line(res.Messages[3].Content, "The labels are"))
		}
	}
	return nil
}

// line is the line of text that begins with prefix, with its newline.
func line(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l + "\n"
		}
	}
	return "\n"
}
