package agent

import (
	"strings"
	"testing"
)

// FuzzThinking holds the inline-thinking splitter to its word: it never
// panics; the thinking removed and the answer left are the reply's text,
// every byte of it, in order; a text that begins with no thinking block
// is left as it is; and the streamed scan, fed the text in pieces, puts
// the answer where the whole text's split does.
func FuzzThinking(f *testing.F) {
	for _, s := range []string{
		"", "{}", " <think>a</think>\n{}", "<think>unclosed", "<THINKING>x</thinking> y",
		"<reasoning></reasoning>", "<think>a</thinking>b</think>c", "<thi", "<think>a</thi", "\n\n", "<think>x</think>  ",
		"<thinker>{}", "a<think>b</think>",
	} {
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, s string, piece uint8) {
		n, text, closed := splitThinking(s)
		if n < 0 || n > len(s) {
			t.Fatalf("split %q: %d bytes of %d", s, n, len(s))
		}
		if open, _ := openTag(s); open == 0 && n != 0 {
			t.Fatalf("split %q: no block at the start, yet %d bytes removed", s, n)
		}
		if n > 0 && (!strings.Contains(s[:n], text) || !closed && n != len(s)) {
			t.Fatalf("split %q: n %d, text %q, closed %v", s, n, text, closed)
		}
		a := &Agent{}
		msg := Message{Content: s}
		th := a.thinking(&msg)
		if removed := s[:len(s)-len(msg.Content)]; removed+msg.Content != s || th.Bytes != len(removed) || th.Inline != (n > 0) {
			t.Fatalf("thinking(%q): content %q, row %+v", s, msg.Content, th)
		}
		off := &Agent{cfg: config{inlineThinkingOff: true}}
		msg = Message{Content: s}
		if th := off.thinking(&msg); msg.Content != s || th.Bytes != 0 {
			t.Fatalf("off, thinking(%q) changed it: %q, %+v", s, msg.Content, th)
		}

		step := max(int(piece%16), 1)
		var scan thinkScan
		at, ok := 0, false
		for end := min(step, len(s)); ; end = min(end+step, len(s)) {
			if at, ok = scan.answer(s[:end]); ok || end == len(s) {
				break
			}
		}
		switch {
		case ok && at != n:
			t.Fatalf("scan of %q: the answer at %d, the split's at %d", s, at, n)
		case !ok && strings.TrimSpace(s[n:]) != "" && !maybeOpenTag(strings.TrimLeft(s, " \t\r\n")):
			t.Fatalf("scan of %q: still thinking at its end, yet the split's answer is %q", s, s[n:])
		}
	})
}
