package gemini

import (
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

func TestAgentUnionToolsThroughTheWire(t *testing.T) {
	// The calls come without IDs: the ones the adapter makes up are sent
	// back as none.
	wiretest.UnionToolsThroughTheWire(t, adapter,
		okReply(answerCall("refund", `{"order":"A1"}`)), // amount missing
		okReply(answerCall("escalation", `{"team":"billing"}`)),
		"")
}

func TestAgentUnionNativeThroughTheWire(t *testing.T) {
	structured := adapter
	structured.New = func(t *testing.T, c wiretest.Client) agent.StreamingModel { return modelAt(t, c, WithNativeSchema()) }
	_, sent := wiretest.UnionNativeThroughTheWire(t, structured,
		okReply(answer(`{"refund":{"order":"A1","amount":5},"escalation":{"team":"billing"}}`)),
		okReply(answer(`{"escalation":{"team":"billing"}}`)))
	if err := wiretest.GeminiSchema(sent.Format); err != nil {
		t.Errorf("the union's schema sent breaks Gemini's rules: %v\n%s", err, sent.Format)
	}
}
