package agent

import (
	"context"
	"encoding/json"
	"math"
)

// Role says who wrote a message.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one turn of the conversation.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content,omitempty"`
	// Reasoning is the model's thinking before its answer, kept apart
	// from Content and never judged: what an adapter's provider gave
	// apart, and the thinking the reply's text began with
	// ([WithInlineThinking]). Whether it is sent back to the model is
	// the adapter's choice, as its provider documents.
	Reasoning string `json:"reasoning,omitempty"`
	// ReasoningRaw is the thinking in the provider's own form (JSON), for
	// an adapter whose provider must be sent it back as it came
	// (Anthropic's signed thinking blocks); the loop keeps it with the
	// message and reads none of it.
	ReasoningRaw json.RawMessage `json:"reasoningRaw,omitempty"`
	ToolCalls    []ToolCall      `json:"toolCalls,omitzero"`
	ToolCallID   string          `json:"toolCallId,omitempty"` // on a RoleTool message: the call it answers
}

// ToolCall is the model asking to run a tool. Within a reply each call
// gets an ID of its own: the model's, unless an earlier call of the reply
// has it or it is empty, then one the loop makes up. The conversation
// ([Result.Messages], and what the model is sent next) carries those IDs.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"` // JSON Schema of the arguments
}

// Request is what the loop sends the model on each iteration.
type Request struct {
	Messages []Message
	Tools    []ToolSpec
	// OutputSchema is the contract's JSON Schema when the agent has one,
	// for models that can constrain their output natively. The answer is
	// judged either way. Like the contract in the system message and the
	// tools' parameters, it is sent without its root "$id" (for a
	// reflected schema, a URL made of the Go import path). With
	// [WithOutputTool] it is nil: the schema is the output tool's
	// parameters instead.
	OutputSchema json.RawMessage
	// RequireToolCall says the reply must call a tool, as with
	// [WithOutputTool], where the final answer is a tool call. An adapter
	// whose provider can be told so does (OpenAI: tool_choice "required";
	// Anthropic: tool_choice {"type": "any"}); a reply in text is judged
	// as no call either way.
	RequireToolCall bool
}

// Response is the model's reply: a final answer (no tool calls) or tool
// calls to run.
type Response struct {
	Message Message
	Usage   Usage
	// Stop says why the reply ended. For [StopRefusal] and
	// [StopContentFilter], Message.Content holds what the provider gave
	// instead of an answer (its refusal text, or nothing).
	Stop StopReason
	// StopRaw is the provider's own value ("end_turn", "length", …), kept
	// for diagnostics; the loop reads only Stop.
	StopRaw string
	// ReadBack lists the JSON Pointers of the members an adapter removed
	// from Message.Content because its native mode made the model write
	// null for them where the contract has them optional (see
	// providers/native). The answer's row names them
	// ([enforce.Attempt.ReadBack]).
	ReadBack []string
}

// StopReason says why a model's reply ended, in words shared by every
// adapter. A Model that leaves it empty is read as [StopUnknown].
type StopReason string

const (
	// StopComplete: the model finished its reply.
	StopComplete StopReason = "complete"
	// StopToolUse: the model stopped to have its tool calls run.
	StopToolUse StopReason = "tool_use"
	// StopLength: the reply was truncated at the output token limit. A
	// truncated final answer is judged, and the loop asks for a shorter
	// one (see [WithOutputRetries]); a truncated reply's tool calls are
	// not run.
	StopLength StopReason = "length"
	// StopRefusal: the model declined to answer. The run ends with a
	// [*RefusalError]; nothing is judged.
	StopRefusal StopReason = "refusal"
	// StopContentFilter: the provider's content filter stopped the reply.
	// The run ends with a [*RefusalError]; nothing is judged.
	StopContentFilter StopReason = "content_filter"
	// StopUnknown: the provider did not say, or said something with no
	// word here (see [Response.StopRaw]). The reply is taken as it is.
	StopUnknown StopReason = "unknown"
)

// withheld reports whether r means the reply is no answer at all.
func (r StopReason) withheld() bool { return r == StopRefusal || r == StopContentFilter }

// Usage counts tokens. InputTokens is the whole prompt, CachedTokens
// among them; OutputTokens the whole reply, ReasoningTokens among them
// (as the GenAI conventions count them). Summed over calls, each count
// saturates at math.MaxInt instead of wrapping, and a negative count a
// model reports is taken as unknown: it adds nothing.
type Usage struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
	// CachedTokens are prompt tokens read from the provider's prompt
	// cache.
	CachedTokens int `json:"cachedTokens,omitempty"`
	// ReasoningTokens are reply tokens spent on reasoning (thinking).
	ReasoningTokens int `json:"reasoningTokens,omitempty"`
	// Detailed says the provider reported CachedTokens and ReasoningTokens,
	// so that a zero there is a measured zero. A sum is Detailed when every
	// call that reported usage was; a call that reported none (a failed
	// one) leaves it as it was. Only a Detailed usage reaches
	// turn/completed, whose usage needs all four counts.
	Detailed bool `json:"detailed,omitempty"`
}

func (u *Usage) add(v Usage) {
	// A negative count is unknown, so the four are not all known.
	detailed := v.Detailed && min(v.InputTokens, v.OutputTokens, v.CachedTokens, v.ReasoningTokens) >= 0
	switch {
	case v == Usage{}:
		return
	case *u == Usage{}:
		u.Detailed = detailed
	default:
		u.Detailed = u.Detailed && detailed
	}
	u.InputTokens = addTokens(u.InputTokens, v.InputTokens)
	u.OutputTokens = addTokens(u.OutputTokens, v.OutputTokens)
	u.CachedTokens = addTokens(u.CachedTokens, v.CachedTokens)
	u.ReasoningTokens = addTokens(u.ReasoningTokens, v.ReasoningTokens)
}

// update takes the counts a streamed chunk reports: each one above zero
// replaces the one before it, and Detailed, once said with no count
// negative (unknown), stays.
func (u *Usage) update(c Usage) {
	for _, f := range [...]struct {
		to *int
		n  int
	}{
		{&u.InputTokens, c.InputTokens}, {&u.OutputTokens, c.OutputTokens},
		{&u.CachedTokens, c.CachedTokens}, {&u.ReasoningTokens, c.ReasoningTokens},
	} {
		if f.n > 0 {
			*f.to = f.n
		}
	}
	u.Detailed = u.Detailed || c.Detailed && min(c.InputTokens, c.OutputTokens, c.CachedTokens, c.ReasoningTokens) >= 0
}

func addTokens(sum, n int) int {
	sum, n = max(sum, 0), max(n, 0)
	if sum > math.MaxInt-n {
		return math.MaxInt
	}
	return sum + n
}

// Model generates the next message of a conversation. Implementations must
// be safe for concurrent use when one [Agent] serves many runs at once,
// must treat req as read-only (its slices may be shared between requests
// and runs), and should return when ctx ends: like a tool or a middleware
// step, a Generate that does not is left to finish on its own goroutine
// (see the package doc's Cancellation).
type Model interface {
	Generate(ctx context.Context, req Request) (Response, error)
}

// ModelFunc adapts a function to Model.
type ModelFunc func(ctx context.Context, req Request) (Response, error)

// Generate calls f.
func (f ModelFunc) Generate(ctx context.Context, req Request) (Response, error) { return f(ctx, req) }
