package openai

import (
	"testing"

	"github.com/enforcer-go/enforcer/providers/internal/openaiwiretest"
)

// TestTheChatCompletionsWire runs the scenarios both adapters of the
// chat completions wire share (see openaiwiretest), against this one.
func TestTheChatCompletionsWire(t *testing.T) {
	openaiwiretest.Run(t, openaiwiretest.Harness{
		Adapter:    adapter,
		IsSDKError: isSDKError,
		Build: func(url, model string, o openaiwiretest.Options) openaiwiretest.Model {
			var opts []Option
			if o.Native != "" {
				opts = append(opts, WithNativeSchema(o.Native))
			}
			if o.Unstreamed {
				opts = append(opts, WithoutStreaming())
			}
			if o.Reasoning {
				opts = append(opts, WithReasoning())
			}
			if o.Invalid {
				opts = append(opts, WithParams(nil))
			}
			return New(clientAt(url), model, opts...)
		},
	})
}
