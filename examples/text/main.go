// text: a plain-text answer held to rules — at most 120 characters, the
// city named, no "as an AI". The model's first answer streams and says
// "as an AI" across two chunks: it is cut at the byte that completes the
// phrase, and the corrective turn goes out at once. The second runs
// past 120 characters: it is cut at the first byte of the 121st. The
// third passes. The model is scripted, and streams: no network, no keys.
//
//	go run ./examples/text
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

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// scripted streams its replies in order, 8 bytes a chunk.
type scripted struct {
	replies []string
	calls   int
}

func (m *scripted) Generate(context.Context, agent.Request) (agent.Response, error) {
	panic("a model that streams is streamed")
}

func (m *scripted) GenerateStream(ctx context.Context, _ agent.Request) iter.Seq2[agent.Chunk, error] {
	reply := m.replies[m.calls]
	m.calls++
	return func(yield func(agent.Chunk, error) bool) {
		for i := 0; i < len(reply); i += 8 {
			if err := ctx.Err(); err != nil {
				yield(agent.Chunk{}, err)
				return
			}
			if !yield(agent.Chunk{Text: reply[i:min(i+8, len(reply))]}, nil) {
				return
			}
		}
		yield(agent.Chunk{Stop: agent.StopComplete}, nil)
	}
}

func run(ctx context.Context, out io.Writer) error {
	rules, err := enforce.Text(enforce.MaxLength(120), enforce.MustContain("Paris"), enforce.MustNotContain("as an AI"))
	if err != nil {
		return err
	}
	model := &scripted{replies: []string{
		"Well, as an AI I cannot look outside, but it is probably mild in Paris today.",
		"Expect a mild, mostly sunny afternoon with a light westerly breeze, a few high clouds, and around 21 degrees by four o'clock.",
		"Paris: mild and sunny, about 21 degrees, a light breeze.",
	}}
	a := agent.New(model, agent.WithOutputSchema(rules), agent.WithOutputRetries(2))
	text, res, err := agent.RunText(ctx, a, "The weather in Paris, in one line?")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "the model is told:\n%s\n\n", indent(res.Messages[0].Content))
	for _, r := range res.Attempts {
		r.LatencyMs = 0 // the clock's, not the script's
		row, err := json.Marshal(r)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "row: %s\n", row)
	}
	fmt.Fprintf(out, "\nthe conversation keeps the cut answer: %q\n", res.Messages[2].Content)
	fmt.Fprintf(out, "the second correction says:\n%s\n", indent(issues(res.Messages[5].Content)))
	fmt.Fprintf(out, "\nresult after %d model calls: %s\n", model.calls, text)
	return nil
}

// issues is the issue lines of a corrective message.
func issues(msg string) string {
	var lines []string
	for _, l := range strings.Split(msg, "\n") {
		if strings.HasPrefix(l, "- at ") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }
