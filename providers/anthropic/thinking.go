package anthropic

import (
	"encoding/json"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
)

// thought is one thinking or redacted_thinking block of a reply, as
// agent.Message.ReasoningRaw keeps them (a JSON array, in order): what
// the API must be sent back unchanged.
type thought struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"` // redacted_thinking's
}

// thoughts is what a reply's thinking blocks make of a message:
// Reasoning (text), each block's thinking after the one before with a
// blank line between, and ReasoningRaw, every block (raw).
type thoughts struct {
	blocks []thought
	text   string
	wrote  bool // the latest block's thinking is in text
}

// add begins block b, and returns what it adds to text.
func (t *thoughts) add(b thought) string {
	t.blocks = append(t.blocks, thought{Type: b.Type, Signature: b.Signature, Data: b.Data})
	t.wrote = false
	return t.write(b.Thinking)
}

// write continues the latest block's thinking with s, and returns what it
// adds to text.
func (t *thoughts) write(s string) string {
	if s == "" || len(t.blocks) == 0 {
		return ""
	}
	t.blocks[len(t.blocks)-1].Thinking += s
	if !t.wrote && t.text != "" {
		s = "\n\n" + s
	}
	t.wrote = true
	t.text += s
	return s
}

// sign continues the latest block's signature with s.
func (t *thoughts) sign(s string) {
	if len(t.blocks) > 0 {
		t.blocks[len(t.blocks)-1].Signature += s
	}
}

// raw is ReasoningRaw: the blocks as JSON, nil when there are none.
func (t *thoughts) raw() json.RawMessage {
	if len(t.blocks) == 0 {
		return nil
	}
	b, _ := json.Marshal(t.blocks) // strings only: never fails
	return b
}

// sentBack are the blocks of an assistant message's ReasoningRaw to send
// back before its text and tool calls. They are sent only with tool
// calls: the API requires a tool-calling turn's thinking blocks, unchanged,
// while the tools' results are sent, and drops earlier turns' thinking
// itself. A ReasoningRaw that is not this adapter's is not sent.
func sentBack(msg []byte, calls int) []sdk.ContentBlockParamUnion {
	var blocks []thought
	if calls == 0 || len(msg) == 0 || json.Unmarshal(msg, &blocks) != nil {
		return nil
	}
	var out []sdk.ContentBlockParamUnion
	for _, b := range blocks {
		switch b.Type {
		case "thinking":
			out = append(out, sdk.NewThinkingBlock(b.Signature, b.Thinking))
		case "redacted_thinking":
			out = append(out, sdk.NewRedactedThinkingBlock(b.Data))
		}
	}
	return out
}

// whyThinking is why a model with extended thinking on takes no output
// tool in agent.WithAutoOutputMode: with thinking, tool_choice may be
// only auto or none.
const whyThinking = "extended thinking is on, and the API refuses a forced tool call with it"

// thinking reports whether p turns extended thinking on.
func thinking(p sdk.MessageNewParams) bool {
	t := p.Thinking
	return t.OfEnabled != nil || t.OfAdaptive != nil || t.OfBetweenTools != nil
}

// thinks reports whether m's requests turn extended thinking on
// (WithParams), as far as the caller's adjustments say without a
// request: one that panics on empty parameters says nothing.
func (m *Model) thinks() (on bool) {
	defer func() {
		if recover() != nil {
			on = false
		}
	}()
	var p sdk.MessageNewParams
	m.opts.Apply(&p)
	return thinking(p)
}
