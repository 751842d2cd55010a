package goopenai

import (
	"encoding/json"
	"testing"

	sdk "github.com/sashabaranov/go-openai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/openaiwire"
	"github.com/enforcer-go/enforcer/providers/internal/openaiwiretest"
)

// FuzzChunkReader feeds the stream reader chunks from the provider, one a
// line, as the SDK decodes them (see openaiwiretest.FuzzChunks).
func FuzzChunkReader(f *testing.F) {
	openaiwiretest.FuzzChunks(f, System, func(line []byte) ([]openaiwire.Choice, agent.Usage, bool) {
		var cc sdk.ChatCompletionStreamResponse
		if json.Unmarshal(line, &cc) != nil {
			return nil, agent.Usage{}, false
		}
		return choices(nil, cc), usageOf(cc.Usage), true
	})
}
