package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// FuzzEventReader feeds the stream reader events from the provider, one a
// line: whatever they say, it never panics, and the chunks it yields keep
// agent.Chunk's contract (a call continued only after it began).
func FuzzEventReader(f *testing.F) {
	var b bytes.Buffer
	for _, ev := range toolUseStream {
		_, data, _ := strings.Cut(ev, "\ndata: ")
		b.WriteString(data[:len(data)-1])
	}
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		r := eventReader{calls: map[int64]int{}}
		var chunks []agent.Chunk
		for line := range bytes.Lines(data) {
			var ev sdk.MessageStreamEventUnion
			if json.Unmarshal(line, &ev) != nil {
				continue
			}
			got, err := r.read(ev, nil)
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
