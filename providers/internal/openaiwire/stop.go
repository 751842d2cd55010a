package openaiwire

import (
	"fmt"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
)

// StopReason maps a chat completions finish_reason.
func StopReason(finish string) agent.StopReason {
	switch finish {
	case "stop":
		return agent.StopComplete
	case "length":
		return agent.StopLength
	case "tool_calls", "function_call":
		return agent.StopToolUse
	case "content_filter":
		return agent.StopContentFilter
	}
	return agent.StopUnknown
}

// CheckToolType refuses tool call i of a type the adapters never declare,
// as a malformed response of system with HTTP status.
func CheckToolType(system string, status, i int, typ string) error {
	if typ != "" && typ != "function" {
		return wire.Malformed(system, status, fmt.Sprintf("tool call %d has type %q; only function tools are sent", i, typ))
	}
	return nil
}

// WholeReply is a reply that came whole (WithoutStreaming) as the chunks
// that add up to it.
func WholeReply(resp agent.Response) []agent.Chunk {
	// Why it ended comes first, with the text: the agent then knows the
	// reply is whole and judges it whole, where it would cut an answer
	// still streaming.
	out := []agent.Chunk{{Text: resp.Message.Content, Reasoning: resp.Message.Reasoning, Usage: resp.Usage, Stop: resp.Stop, StopRaw: resp.StopRaw, ReadBack: resp.ReadBack}}
	for i, c := range resp.Message.ToolCalls {
		out = append(out, agent.Chunk{Call: &agent.CallDelta{Index: i, ID: c.ID, Name: c.Name, Arguments: string(c.Arguments)}})
	}
	return out
}
