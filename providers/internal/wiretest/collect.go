package wiretest

import (
	"encoding/json"
	"fmt"
	"iter"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/agent"
)

// Collect reads a streamed reply to its end and assembles it as the
// chunks' documentation says: text and argument fragments appended in
// order, calls by index, a usage count or stop reason replaced by a later
// one (Detailed, once said, stays). It returns what was assembled and
// the first error, and fails on a chunk that breaks the contract (a call
// fragment before its call began).
func Collect(seq iter.Seq2[agent.Chunk, error]) (agent.Response, error) {
	resp := agent.Response{Message: agent.Message{Role: agent.RoleAssistant}}
	var args [][]byte
	for c, err := range seq {
		if err != nil {
			return finish(resp, args), err
		}
		resp.Message.Content += c.Text
		if d := c.Call; d != nil {
			switch {
			case d.Index == len(resp.Message.ToolCalls):
				resp.Message.ToolCalls = append(resp.Message.ToolCalls, agent.ToolCall{ID: d.ID, Name: d.Name})
				args = append(args, nil)
			case d.Index > len(resp.Message.ToolCalls) || d.Index < 0:
				return finish(resp, args), fmt.Errorf("wiretest: call %d continued before it began", d.Index)
			case d.ID != "" || d.Name != "":
				return finish(resp, args), fmt.Errorf("wiretest: call %d got its id or name twice", d.Index)
			}
			args[d.Index] = append(args[d.Index], d.Arguments...)
		}
		for _, f := range [...]struct {
			to *int
			n  int
		}{
			{&resp.Usage.InputTokens, c.Usage.InputTokens}, {&resp.Usage.OutputTokens, c.Usage.OutputTokens},
			{&resp.Usage.CachedTokens, c.Usage.CachedTokens}, {&resp.Usage.ReasoningTokens, c.Usage.ReasoningTokens},
		} {
			if f.n > 0 {
				*f.to = f.n
			}
		}
		resp.Usage.Detailed = resp.Usage.Detailed || c.Usage.Detailed
		if c.Stop != "" {
			resp.Stop = c.Stop
		}
		if c.StopRaw != "" {
			resp.StopRaw = c.StopRaw
		}
	}
	return finish(resp, args), nil
}

func finish(resp agent.Response, args [][]byte) agent.Response {
	for i, a := range args {
		resp.Message.ToolCalls[i].Arguments = json.RawMessage(a)
	}
	return resp
}

// Pieces splits s into pieces of about n bytes, never inside a UTF-8
// character, as a provider streams a reply's text in small deltas.
func Pieces(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		i := min(n, len(s))
		for i < len(s) && !utf8.RuneStart(s[i]) {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}
