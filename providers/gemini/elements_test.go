package gemini

import (
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

func TestRunElementsThroughTheWire(t *testing.T) {
	text := func(s string) wiretest.Reply { return okReply(answer(s)) }
	t.Run("prompted", func(t *testing.T) { wiretest.ElementsThroughTheWire(t, adapter, text) })
	t.Run("native", func(t *testing.T) {
		a := adapter
		a.New = func(t *testing.T, c wiretest.Client) agent.StreamingModel { return modelAt(t, c, WithNativeSchema()) }
		srv := wiretest.ElementsThroughTheWire(t, a, text)
		if sent := a.Sent(t, srv, 0); sent.Format == nil {
			t.Error("the first request sent no native output format")
		}
	})
	t.Run("tool", func(t *testing.T) {
		call := func(s string) wiretest.Reply { return okReply(answerCall("final_result", s)) }
		wiretest.ElementsThroughTheWire(t, adapter, call, agent.WithOutputTool("final_result"))
	})
}
