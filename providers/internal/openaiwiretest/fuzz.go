package openaiwiretest

import (
	"bytes"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/openaiwire"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// FuzzChunks feeds an adapter's stream reader chunks from the provider,
// one a line, each decoded by decode as the adapter's SDK decodes it (ok
// false for a line it refuses): whatever they say, the reader never
// panics, and the chunks it yields keep agent.Chunk's contract (a call
// continued only after it began).
func FuzzChunks(f *testing.F, system string, decode func(line []byte) (choices []openaiwire.Choice, usage agent.Usage, ok bool)) {
	for _, evs := range [][]string{TextStream("stop", 21, 3, "Par", "is."), ToolCallStream} {
		var b bytes.Buffer
		for _, ev := range evs {
			b.WriteString(ev[len("data: ") : len(ev)-1])
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := openaiwire.NewChunkReader(system, nil)
		var chunks []agent.Chunk
		for line := range bytes.Lines(data) {
			choices, usage, ok := decode(line)
			if !ok {
				continue
			}
			got, err := r.Read(choices, usage, 200)
			if err != nil {
				return
			}
			chunks = append(chunks, got...)
		}
		if _, err := wiretest.CollectChunks(chunks); err != nil {
			t.Errorf("the reader broke the chunk contract: %v", err)
		}
	})
}
