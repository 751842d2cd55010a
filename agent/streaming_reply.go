package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ReplyBuilder puts a streamed reply together from its chunks as the loop
// does ([Chunk] says how each field continues the reply). The zero value
// is ready to use; do not copy one after its first Add.
type ReplyBuilder struct {
	text      strings.Builder
	reasoning strings.Builder
	raw       json.RawMessage // the latest Chunk.ReasoningRaw
	calls     []ToolCall
	args      []*strings.Builder // pointers: a Builder written to must not be copied as the slice grows
	usage     Usage
	stop      StopReason
	stopRaw   string
}

// Add adds c to the reply. A chunk that continues a tool call that has
// not begun is an error, and adds nothing.
func (b *ReplyBuilder) Add(c Chunk) error {
	if d := c.Call; d != nil && (d.Index < 0 || d.Index > len(b.calls)) {
		return fmt.Errorf("%w: call %d after %d calls", errCallOrder, d.Index, len(b.calls))
	}
	b.text.WriteString(c.Text)
	b.reasoning.WriteString(c.Reasoning)
	if c.ReasoningRaw != nil {
		b.raw = c.ReasoningRaw
	}
	if d := c.Call; d != nil {
		if d.Index == len(b.calls) {
			b.calls = append(b.calls, ToolCall{})
			b.args = append(b.args, new(strings.Builder))
		}
		tc := &b.calls[d.Index]
		if tc.ID == "" {
			tc.ID = d.ID
		}
		if tc.Name == "" {
			tc.Name = d.Name
		}
		b.args[d.Index].WriteString(d.Arguments)
	}
	b.usage.update(c.Usage)
	if c.Stop != "" {
		b.stop = c.Stop
	}
	if c.StopRaw != "" {
		b.stopRaw = c.StopRaw
	}
	return nil
}

// errCallOrder is a chunk that continues a tool call that never began.
var errCallOrder = errors.New("agent: streamed reply continues a tool call that has not begun")

// Response returns the reply as Generate would have given it.
func (b *ReplyBuilder) Response() Response {
	calls := slices.Clone(b.calls)
	for i := range calls {
		if b.args[i].Len() > 0 {
			calls[i].Arguments = json.RawMessage(b.args[i].String())
		}
	}
	return Response{
		Message: Message{Role: RoleAssistant, Content: b.text.String(), Reasoning: b.reasoning.String(), ReasoningRaw: b.raw, ToolCalls: calls},
		Usage:   b.usage, Stop: b.stop, StopRaw: b.stopRaw,
	}
}

// assembly puts a streamed reply together.
type assembly struct {
	ReplyBuilder
	readBack []string

	// Kept as names arrive, so that no chunk scans the calls (a reply may
	// hold many): tool is the output tool's name ("" without one), first
	// is 1 + the index of the first call named tool (0: none yet), and
	// calls[:named] all have their names.
	tool  string
	first int
	named int
}

func (r *assembly) add(c Chunk) error {
	if err := r.Add(c); err != nil {
		return err
	}
	if d := c.Call; d != nil && d.Name != "" {
		if d.Name == r.tool && r.calls[d.Index].Name == d.Name && (r.first == 0 || d.Index < r.first-1) {
			r.first = d.Index + 1
		}
		for r.named < len(r.calls) && r.calls[r.named].Name != "" {
			r.named++
		}
	}
	if c.ReadBack != nil {
		r.readBack = c.ReadBack
	}
	return nil
}

// trim clips c's text and arguments to what can decide the reply, so
// that a huge chunk is not copied only to be refused: room more bytes
// (one past them fails the reply's bound), or up to the byte past the
// answer's bound, which decides an answer's verdict, whichever is more.
func (r *assembly) trim(c Chunk, room, bound int) Chunk {
	if n := max(room, bound+1-r.text.Len()); len(c.Text) > n {
		c.Text = c.Text[:n]
	}
	room -= len(c.Text)
	if n := max(room, 0); len(c.Reasoning) > n {
		c.Reasoning = c.Reasoning[:n]
	}
	room -= len(c.Reasoning)
	if d := c.Call; d != nil && d.Index >= 0 && d.Index <= len(r.calls) {
		have := 0
		if d.Index < len(r.calls) {
			have = r.args[d.Index].Len()
		}
		if n := max(room, bound+1-have, 0); len(d.Arguments) > n {
			cut := *d
			cut.Arguments = d.Arguments[:n]
			c.Call = &cut
		}
	}
	return c
}

// isAnswer reports whether call i is the output tool's call the run
// takes for the answer: the first one named tool (see outputAnswer).
func (r *assembly) isAnswer(i int) bool {
	return r.tool != "" && r.first == i+1
}

// namedBefore reports whether every call before call i has its name.
func (r *assembly) namedBefore(i int) bool { return r.named >= i }

// keepAnswer cuts the answer — the text when call < 0, else call's
// arguments — to its first n bytes, and returns what it kept. It forgets
// why the reply ended: a reply cut at the loop's own verdict never
// reached the stop its last chunk may have carried (a StopLength there
// would mark the cut answer Truncated, as the same answer chunked
// otherwise is not).
func (r *assembly) keepAnswer(call, n int) string {
	b := &r.text
	if call >= 0 {
		b = r.args[call]
	}
	kept := b.String()[:n]
	b.Reset()
	b.WriteString(kept)
	r.stop, r.stopRaw = "", ""
	return kept
}

// response is the reply as Generate would have given it.
func (r *assembly) response() Response {
	resp := r.Response()
	resp.ReadBack = r.readBack
	return resp
}
