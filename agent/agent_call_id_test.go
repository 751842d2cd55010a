package agent_test

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
)

// recordingModel is a scripted model, streaming or not.
type recordingModel interface {
	agent.Model
	Requests() []agent.Request
}

// Each result names the call it answers, so the calls of one reply get
// IDs of their own, on the record: a repeated ID, or one missing, is
// replaced by one that no call of the reply has, and the conversation
// (Result.Messages, and what the model is sent next) carries the IDs
// the results answer.
func TestToolCallIDsAreUniqueWithinAReply(t *testing.T) {
	lookup := agent.NewTool("lookup", "", func(context.Context, struct{}) (string, error) { return "sunny", nil })
	calls := []agent.ToolCall{
		agenttest.Call("c1", "lookup", `{}`),
		agenttest.Call("c1", "lookup", `{}`),       // repeats the first
		agenttest.Call("", "lookup", `{}`),         // none: call_1_3 is the fourth's
		agenttest.Call("call_1_3", "lookup", `{}`), // the model's own
	}
	want := []string{"c1", "call_1_2", "call_1_3_2", "call_1_3"}
	models := map[string]func(t *testing.T) recordingModel{
		"generated": func(t *testing.T) recordingModel {
			return agenttest.NewModel(t, agenttest.CallTools(calls...), agenttest.Reply("done"))
		},
		"streamed": func(t *testing.T) recordingModel {
			return agenttest.NewStreamingModel(t, agenttest.CallTools(calls...), agenttest.Reply("done"))
		},
	}
	for name, newModel := range models {
		t.Run(name, func(t *testing.T) {
			m := newModel(t)
			res, err := agent.New(m, agent.WithTools(lookup)).Run(t.Context(), "Weather?")
			if err != nil {
				t.Fatal(err)
			}
			var got, answered []string
			for _, c := range res.Messages[1].ToolCalls {
				got = append(got, c.ID)
			}
			for _, msg := range res.Messages[2:6] {
				answered = append(answered, msg.ToolCallID)
			}
			if !slices.Equal(got, want) || !slices.Equal(answered, want) {
				t.Errorf("call IDs %q, answered %q; want both %q", got, answered, want)
			}
			sent := m.Requests()[1].Messages
			if !reflect.DeepEqual(sent, res.Messages[:len(sent)]) {
				t.Errorf("the model was sent %+v, want the conversation on the record", sent)
			}
			if calls[1].ID != "c1" || calls[2].ID != "" {
				t.Error("the model's own reply was changed")
			}
		})
	}
}
