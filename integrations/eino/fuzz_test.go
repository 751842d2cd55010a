package eino_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/integrations/eino"
)

// collect puts a stream's chunks together as the agent does, and says
// where they break agent.Chunk's contract: a call continued before it
// began, or given its id or name twice.
func collect(seq func(func(agent.Chunk, error) bool)) (agent.Response, error) {
	r := agent.Response{Message: agent.Message{Role: agent.RoleAssistant}}
	var broken error
	seq(func(c agent.Chunk, err error) bool {
		if err != nil {
			broken = err
			return false
		}
		r.Message.Content += c.Text
		if d := c.Call; d != nil {
			switch n := len(r.Message.ToolCalls); {
			case d.Index == n:
				r.Message.ToolCalls = append(r.Message.ToolCalls, agent.ToolCall{ID: d.ID, Name: d.Name})
			case d.Index < 0 || d.Index > n:
				broken = fmt.Errorf("call %d continued before it began", d.Index)
				return false
			case d.ID != "" || d.Name != "":
				broken = fmt.Errorf("call %d got its id or name twice", d.Index)
				return false
			}
			tc := &r.Message.ToolCalls[d.Index]
			tc.Arguments = append(tc.Arguments, d.Arguments...)
		}
		if c.Usage.InputTokens > 0 {
			r.Usage.InputTokens = c.Usage.InputTokens
		}
		if c.Usage.OutputTokens > 0 {
			r.Usage.OutputTokens = c.Usage.OutputTokens
		}
		if c.Stop != "" {
			r.Stop, r.StopRaw = c.Stop, c.StopRaw
		}
		return true
	})
	return r, broken
}

// FuzzStream feeds GenerateStream eino message chunks, one JSON message
// a line: whatever they say, it never panics, its chunks keep
// agent.Chunk's contract, every call it began ends with arguments, and
// its text is the text Generate gives for the same chunks.
func FuzzStream(f *testing.F) {
	zero := 0
	seeds := [][]*schema.Message{
		chunks(`{"city": `, `"Paris"}`),
		{
			schema.AssistantMessage("", []schema.ToolCall{{Index: &zero, ID: "a", Function: schema.FunctionCall{Name: "f", Arguments: `{"x":`}}}),
			schema.AssistantMessage("", []schema.ToolCall{{Index: &zero, Function: schema.FunctionCall{Arguments: `1}`}}}),
			{Role: schema.Assistant, ResponseMeta: &schema.ResponseMeta{FinishReason: "tool_calls", Usage: &schema.TokenUsage{PromptTokens: 3, CompletionTokens: 2}}},
		},
	}
	for _, seed := range seeds {
		var b bytes.Buffer
		for _, m := range seed {
			line, _ := json.Marshal(m)
			b.Write(append(line, '\n'))
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var reply []*schema.Message
		for line := range bytes.Lines(data) {
			m := new(schema.Message)
			if json.Unmarshal(line, m) != nil {
				continue
			}
			reply = append(reply, m)
		}
		m := eino.NewModel(newScripted(reply))
		got, err := collect(func(yield func(agent.Chunk, error) bool) {
			for c, err := range m.GenerateStream(t.Context(), agent.Request{}) {
				if !yield(c, err) {
					return
				}
			}
		})
		if err != nil {
			t.Fatalf("the stream broke: %v", err)
		}
		for i, c := range got.Message.ToolCalls {
			if len(c.Arguments) == 0 {
				t.Errorf("call %d ended without arguments", i)
			}
		}
		if _, err := schema.ConcatMessages(reply); err != nil || len(reply) == 0 {
			return // eino itself cannot put these chunks together
		}
		whole, err := eino.NewModel(newScripted(reply)).Generate(t.Context(), agent.Request{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := got.Message.Content, whole.Message.Content; got != want {
			t.Errorf("streamed text = %q, Generate's = %q", got, want)
		}
	})
}
