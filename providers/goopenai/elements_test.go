package goopenai

import (
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
	"github.com/enforcer-go/enforcer/providers/native"
)

func TestRunElementsThroughTheWire(t *testing.T) {
	text := func(answer string) wiretest.Reply { return okReply(completion(answer)) }
	t.Run("prompted", func(t *testing.T) { wiretest.ElementsThroughTheWire(t, adapter, text) })
	t.Run("native", func(t *testing.T) {
		a := adapter
		a.New = func(t *testing.T, c wiretest.Client) agent.StreamingModel {
			return New(clientAt(c.URL), "gpt-4o-mini", WithNativeSchema(native.OpenAI))
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
		wiretest.ElementsThroughTheWire(t, adapter, call, agent.WithOutputTool("final_result"))
	})
}
