package openai

import (
	"bytes"
	"encoding/json"
	"testing"

	sdk "github.com/openai/openai-go/v3"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/openaiwire"
	"github.com/enforcer-go/enforcer/providers/internal/openaiwiretest"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// FuzzChunkReader feeds the stream reader chunks from the provider, one a
// line: whatever they say, it never panics, and the chunks it yields keep
// agent.Chunk's contract (a call continued only after it began).
func FuzzChunkReader(f *testing.F) {
	for _, evs := range [][]string{openaiwiretest.TextStream("stop", 21, 3, "Par", "is."), openaiwiretest.ToolCallStream} {
		var b bytes.Buffer
		for _, ev := range evs {
			b.WriteString(ev[len("data: ") : len(ev)-1])
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := openaiwire.NewChunkReader(System, nil)
		var chunks []agent.Chunk
		for line := range bytes.Lines(data) {
			var cc sdk.ChatCompletionChunk
			if json.Unmarshal(line, &cc) != nil {
				continue
			}
			got, err := r.Read(choices(nil, cc), usageOf(cc.Usage), 200)
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
