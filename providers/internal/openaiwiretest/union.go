package openaiwiretest

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
	"github.com/enforcer-go/enforcer/providers/native"
)

func (h Harness) testAgentUnionToolsThroughTheWire(t *testing.T) {
	wiretest.UnionToolsThroughTheWire(t, h.Adapter,
		okReply(toolCall("call_1", "refund", `{"order":"A1"}`)), // amount missing
		okReply(toolCall("call_2", "escalation", `{"team":"billing"}`)),
		"call_1")
}

// In strict mode both members are sent required and nullable: the model
// writes the one it did not choose as null, which the read-back removes
// (and the row names) before the union judges the answer.
func (h Harness) testAgentUnionNativeThroughTheWire(t *testing.T) {
	strict := h.Adapter
	strict.New = func(t *testing.T, c wiretest.Client) agent.StreamingModel {
		return h.New(c.URL, "gpt-4o-mini", WithNativeSchema(native.OpenAI))
	}
	res, sent := wiretest.UnionNativeThroughTheWire(t, strict,
		okReply(Completion(`{"refund":{"order":"A1","amount":5},"escalation":{"team":"billing"}}`)),
		okReply(Completion(`{"refund":null,"escalation":{"team":"billing"}}`)))
	if rb := res.Attempts[1].ReadBack; rb == nil || !slices.Equal(rb.Members, []string{"/refund"}) {
		t.Errorf("row 2 readBack = %+v, want /refund, the member not chosen", rb)
	}
	var format struct {
		JSONSchema struct {
			Strict bool            `json:"strict"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(sent.Format, &format); err != nil || !format.JSONSchema.Strict {
		t.Fatalf("response_format = %s (%v), want a strict json_schema", sent.Format, err)
	}
	if err := wiretest.OpenAIStrict(format.JSONSchema.Schema); err != nil {
		t.Errorf("the union's schema sent breaks OpenAI's strict rules: %v\n%s", err, format.JSONSchema.Schema)
	}
}
