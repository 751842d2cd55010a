package wiretest

import (
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
	var b agent.ReplyBuilder
	calls := 0
	for c, err := range seq {
		if err != nil {
			return b.Response(), err
		}
		if d := c.Call; d != nil {
			switch {
			case d.Index == calls:
				calls++
			case d.Index > calls || d.Index < 0:
				return b.Response(), fmt.Errorf("wiretest: call %d continued before it began", d.Index)
			case d.ID != "" || d.Name != "":
				return b.Response(), fmt.Errorf("wiretest: call %d got its id or name twice", d.Index)
			}
		}
		if err := b.Add(c); err != nil {
			return b.Response(), err
		}
	}
	return b.Response(), nil
}

// CollectChunks is [Collect] of chunks already read, in order.
func CollectChunks(chunks []agent.Chunk) (agent.Response, error) {
	return Collect(func(yield func(agent.Chunk, error) bool) {
		for _, c := range chunks {
			if !yield(c, nil) {
				return
			}
		}
	})
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
