package agent

import (
	"fmt"
	"strconv"

	"unicode/utf8"

	"github.com/enforcer-go/enforcer/enforce"
)

// Degenerate bounds a streamed answer that has stopped saying anything:
// blank space or one piece of text repeated until the output limit, as
// constrained and native JSON modes are known to write. A member that is
// zero is no bound.
type Degenerate struct {
	// Whitespace: the answer is cut at the byte that makes more than
	// this many whitespace bytes (space, tab, CR, LF) in a row.
	Whitespace int
	// Window and Repeats: the answer is cut when its last Window bytes
	// are one unit of text repeated more than Repeats times (a unit of
	// fewer than Window/Repeats bytes, its last copy possibly partial).
	// The answer is looked at each time it has grown by a quarter of
	// Window, so a repetition is cut at most that many bytes after it
	// fills the window. Window is 0 (off) or up to 65536, and Repeats
	// then 2 or more, below Window.
	Window, Repeats int
	// Thinking: the bounds hold for the model's thinking too, which is
	// otherwise never read — the inline block at the start of its text
	// ([WithInlineThinking]) and what its adapter streams apart
	// ([Chunk.Reasoning]) — so that thinking which loops is cut. Its row
	// fails at stage enforce.StageDegenerate with a Cut that says Thinking
	// (its Bytes are the thinking's), and the corrective turn says so.
	Thinking bool
}

// maxDegenerateWindow is the largest [Degenerate].Window.
const maxDegenerateWindow = 1 << 16

// WithDegenerateStop cuts a streamed answer that degenerates, by the
// bounds of d (off by default). It is not an early verdict
// ([WithEarlyAbort]): the answer might still have passed, but would cost
// the whole output limit first. The cut answer, up to the cut, is taken
// as it is when it keeps the contract (a whole value, then endless
// blank space); else its row fails at stage [enforce.StageDegenerate],
// with Cut saying how far it got, and while retries are left the
// corrective turn says it was stopped for degenerating. It reads the
// reply's text until a tool call begins, and with [WithOutputTool] the
// output tool's arguments. It needs [WithOutputSchema] or [RunTyped];
// bounds outside those documented make Run return an error matching
// [ErrInvalidOption].
func WithDegenerateStop(d Degenerate) Option {
	return optionFunc(func(c *config) {
		switch {
		case d.Whitespace < 0:
			c.invalid("WithDegenerateStop: Whitespace %d < 0", d.Whitespace)
		case d.Window < 0 || d.Window > maxDegenerateWindow:
			c.invalid("WithDegenerateStop: Window %d: want 0..%d", d.Window, maxDegenerateWindow)
		case d.Window > 0 && (d.Repeats < 2 || d.Repeats >= d.Window):
			c.invalid("WithDegenerateStop: Repeats %d: want 2..%d for Window %d", d.Repeats, d.Window-1, d.Window)
		case d.Window == 0 && d.Repeats != 0:
			c.invalid("WithDegenerateStop: Repeats %d without a Window", d.Repeats)
		case d.Whitespace == 0 && d.Window == 0:
			c.invalid("WithDegenerateStop: no bound set")
		}
		c.degenerate = &d
	})
}

// degenerate watches one streamed answer. Its cost is linear in the
// answer: each byte is looked at once for whitespace, and every
// Window/4 bytes the last Window bytes are searched for a period:
// the shortest period q of their last 2·(Window-1)/Repeats bytes (the
// prefix function, Knuth–Morris–Pratt), which any period short enough
// to count is a multiple of (Fine and Wilf), then one comparison of the
// window with itself shifted by q. That is about 8/Repeats steps and 4
// compared bytes per byte of the answer, whatever Window is; it holds
// one table of 2·Window/Repeats entries.
type degenerate struct {
	d      Degenerate
	stride int
	tail   int // bytes of the window whose period is searched
	seen   int // bytes of the answer looked at
	blank  int // whitespace bytes in a row at its end
	pi     []int32
}

func newDegenerate(d Degenerate) *degenerate {
	g := &degenerate{d: d, stride: max(d.Window/4, 1)}
	if d.Window > 0 {
		g.tail = min(d.Window, 2*((d.Window-1)/d.Repeats))
	}
	return g
}

// read looks at answer, grown since the last read (an answer that
// shrank is read from its start: a new answer), and returns how many
// bytes of it to keep and why they are degenerate, or 0 while they are
// not.
func (g *degenerate) read(answer string) (int, string) {
	if len(answer) < g.seen {
		g.seen, g.blank = 0, 0
	}
	from := g.seen
	g.seen = len(answer)
	end, why := len(answer), "" // the first cut so far, if why is set
	if w := g.d.Whitespace; w > 0 {
		for i := from; i < len(answer); i++ {
			switch answer[i] {
			case ' ', '\t', '\r', '\n':
				if g.blank++; g.blank > w {
					end, why = i+1, fmt.Sprintf("more than %d whitespace bytes in a row", w)
				}
			default:
				g.blank = 0
				continue
			}
			if why != "" {
				break
			}
		}
	}
	if k := g.d.Window; k > 0 {
		// The check points are the multiples of stride from k on.
		at := max(k, (from/g.stride+1)*g.stride)
		at = (at + g.stride - 1) / g.stride * g.stride
		for ; at <= end; at += g.stride {
			w := answer[at-k : at]
			if p := g.period(w[k-g.tail:]); p*g.d.Repeats < k && w[p:] == w[:k-p] {
				// Cut where a character ends, less than utf8.UTFMax bytes
				// back: the kept answer and the unit quoted are then
				// whole characters (the unit a rotation of the one found,
				// as p is a period of the window and 2p < k).
				cut := charEnd(answer, at)
				unit := clipUnit(answer[cut-p : cut])
				return cut, fmt.Sprintf("its last %d bytes repeat the %d-byte unit %s %d times", k, p, strconv.Quote(unit), k/p)
			}
		}
	}
	if why != "" {
		g.seen = end
		return end, why
	}
	return 0, ""
}

// period is the shortest period of s: the least p with s[i] == s[i+p]
// for every i, by the prefix function.
func (g *degenerate) period(s string) int {
	if g.pi == nil {
		g.pi = make([]int32, g.tail)
	}
	pi := g.pi[:len(s)]
	pi[0] = 0
	for i := 1; i < len(s); i++ {
		k := pi[i-1]
		for k > 0 && s[i] != s[k] {
			k = pi[k-1]
		}
		if s[i] == s[k] {
			k++
		}
		pi[i] = k
	}
	return len(s) - int(pi[len(s)-1])
}

// degenerateCut is the cut of an answer read as far as n bytes, which
// are degenerate for why.
func degenerateCut(n int, why string, u Usage) *enforce.Cut {
	return &enforce.Cut{Verdict: enforce.Degenerate("the answer degenerated: " + why), Bytes: n, OutputTokens: max(u.OutputTokens, 0)}
}

// charEnd is the last place at or before i, and less than utf8.UTFMax
// bytes before it, where no character of s is cut: i, unless a
// character begun before i ends after it (or is not whole yet in s).
func charEnd(s string, i int) int {
	j := i - 1
	for j > 0 && j > i-utf8.UTFMax && !utf8.RuneStart(s[j]) {
		j--
	}
	if j >= 0 && !utf8.FullRuneInString(s[j:i]) {
		return j
	}
	return i
}

// thinkingCut is the cut of thinking read as far as n bytes, which are
// degenerate for why, before any answer.
func thinkingCut(n int, why string, u Usage) *enforce.Cut {
	return &enforce.Cut{Verdict: enforce.Degenerate("the thinking degenerated: " + why), Bytes: n, OutputTokens: max(u.OutputTokens, 0), Thinking: true}
}

// clipUnit is u up to 40 bytes, cut where a character begins, with "…"
// when it was cut: the unit is the model's text, quoted as data.
func clipUnit(u string) string {
	if len(u) <= 40 {
		return u
	}
	n := 40
	for n > 0 && !utf8.RuneStart(u[n]) {
		n--
	}
	return u[:n] + "…"
}
