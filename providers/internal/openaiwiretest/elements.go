package openaiwiretest

import (
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
	"github.com/enforcer-go/enforcer/providers/native"
)

func (h Harness) testRunElementsThroughTheWire(t *testing.T) {
	text := func(answer string) wiretest.Reply { return okReply(Completion(answer)) }
	t.Run("prompted", func(t *testing.T) { wiretest.ElementsThroughTheWire(t, h.Adapter, text) })
	t.Run("native", func(t *testing.T) {
		a := h.Adapter
		a.New = func(t *testing.T, c wiretest.Client) agent.StreamingModel {
			return h.New(c.URL, "gpt-4o-mini", WithNativeSchema(native.OpenAI))
		}
		srv := wiretest.ElementsThroughTheWire(t, a, text)
		if sent := a.Sent(t, srv, 0); sent.Format == nil {
			t.Error("the first request sent no native output format")
		}
	})
	t.Run("tool", func(t *testing.T) {
		n := 0
		call := func(answer string) wiretest.Reply {
			n++
			return okReply(toolCall("call_"+string(rune('0'+n)), "final_result", answer))
		}
		wiretest.ElementsThroughTheWire(t, h.Adapter, call, agent.WithOutputTool("final_result"))
	})
}
