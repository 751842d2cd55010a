package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

func TestAgentUnionToolsThroughTheWire(t *testing.T) {
	wiretest.UnionToolsThroughTheWire(t, adapter,
		okReply(toolUse("toolu_1", "refund", `{"order":"A1"}`)), // amount missing
		okReply(toolUse("toolu_2", "escalation", `{"team":"billing"}`)),
		"toolu_1")
}

func TestAgentUnionNativeThroughTheWire(t *testing.T) {
	structured := adapter
	structured.New = func(t *testing.T, c wiretest.Client) agent.StreamingModel {
		return New(clientAt(c.URL), "claude-sonnet-4-5", WithNativeSchema())
	}
	_, sent := wiretest.UnionNativeThroughTheWire(t, structured,
		okReply(message(`{"refund":{"order":"A1","amount":5},"escalation":{"team":"billing"}}`)),
		okReply(message(`{"escalation":{"team":"billing"}}`)))
	var format struct {
		Format struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"format"`
	}
	if err := json.Unmarshal(sent.Format, &format); err != nil || format.Format.Schema == nil {
		t.Fatalf("output_config = %s (%v), want a schema", sent.Format, err)
	}
	if err := wiretest.AnthropicFormat(format.Format.Schema); err != nil {
		t.Errorf("the union's schema sent breaks Anthropic's rules: %v\n%s", err, format.Format.Schema)
	}
}
