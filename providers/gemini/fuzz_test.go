package gemini

import (
	"bytes"
	"encoding/json"
	"testing"

	"google.golang.org/genai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// FuzzChunkReader feeds the stream reader chunks from the provider, one a
// line: whatever they say, it never panics, reads nothing past the end of
// the reply, and the chunks it yields keep agent.Chunk's contract (a call
// continued only after it began, a call's ID and name given once).
func FuzzChunkReader(f *testing.F) {
	for _, evs := range [][]string{
		streamOf(answer(`{"city":"Paris"}`)),
		streamOf(response("STOP", `{"promptTokenCount":3}`, `{"functionCall":{"id":"a","name":"x","args":{"n":1}},"thoughtSignature":"AAA="}`, funcCall("", "y", `{}`))),
	} {
		var b bytes.Buffer
		for _, ev := range evs {
			b.WriteString(ev[len("data: ") : len(ev)-len("\r\n\r\n")])
			b.WriteByte('\n')
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var r chunkReader
		var chunks []agent.Chunk
		for line := range bytes.Lines(data) {
			if r.ended {
				break
			}
			var resp genai.GenerateContentResponse
			if json.Unmarshal(line, &resp) != nil {
				continue
			}
			got, err := r.read(&resp, 200)
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
