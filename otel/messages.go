package otel

import (
	"encoding/json"

	"github.com/enforcer-go/enforcer/agent"
)

// message is a message as the GenAI conventions' input and output
// message schemas give it (gen_ai.input.messages, gen_ai.output.messages).
type message struct {
	Role  string `json:"role"`
	Parts []part `json:"parts"`
	// FinishReason is required of an output message and absent on an
	// input one.
	FinishReason string `json:"finish_reason,omitempty"`
}

// part is a text, tool_call or tool_call_response part.
type part struct {
	Type      string `json:"type"`
	Content   string `json:"content,omitempty"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments any    `json:"arguments,omitempty"`
	Response  any    `json:"response,omitempty"`
}

// conventional is m in the conventions' shape.
func conventional(m agent.Message) message {
	out := message{Role: string(m.Role), Parts: []part{}}
	if m.Role == agent.RoleTool {
		out.Parts = append(out.Parts, part{Type: "tool_call_response", ID: m.ToolCallID, Response: m.Content})
		return out
	}
	if m.Content != "" {
		out.Parts = append(out.Parts, part{Type: "text", Content: m.Content})
	}
	for _, c := range m.ToolCalls {
		// The arguments as JSON when they are, else as the text the
		// model wrote.
		var args any = string(c.Arguments)
		if json.Valid(c.Arguments) {
			args = json.RawMessage(c.Arguments)
		}
		out.Parts = append(out.Parts, part{Type: "tool_call", ID: c.ID, Name: c.Name, Arguments: args})
	}
	return out
}

// inputMessages is gen_ai.input.messages: the messages sent, in order.
func inputMessages(ms []agent.Message) string {
	out := make([]message, len(ms))
	for i, m := range ms {
		out[i] = conventional(m)
	}
	b, _ := json.Marshal(out) // strings and valid JSON only: cannot fail
	return string(b)
}

// outputMessages is gen_ai.output.messages: the reply, with why it ended.
func outputMessages(r agent.Response) string {
	m := conventional(r.Message)
	m.FinishReason = finishReason(r.Stop)
	b, _ := json.Marshal([]message{m})
	return string(b)
}

// finishReason is a stop reason in the conventions' words, where they
// have one.
func finishReason(s agent.StopReason) string {
	switch s {
	case agent.StopComplete:
		return "stop"
	case agent.StopToolUse:
		return "tool_call"
	case agent.StopLength, agent.StopContentFilter, agent.StopRefusal:
		return string(s)
	}
	return string(agent.StopUnknown)
}
