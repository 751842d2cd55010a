package agent

import (
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// FuzzThinking holds the inline-thinking splitter to its word: it never
// panics; the thinking removed and the answer left are the reply's text,
// every byte of it, in order; a text that begins with no thinking block
// is left as it is (unless, headless, it holds a closing tag alone on
// its line); and the streamed scan, fed the text in pieces, puts
// the answer where the whole text's split does.
// anyJSON is a JSON contract any value keeps.
var anyJSON, _ = enforce.CompileSchema([]byte(`{}`))

func FuzzThinking(f *testing.F) {
	for _, s := range []string{
		"", "{}", " <think>a</think>\n{}", "<think>unclosed", "<THINKING>x</thinking> y",
		"<reasoning></reasoning>", "<think>a</thinking>b</think>c", "<thi", "<think>a</thi", "\n\n", "<think>x</think>  ",
		"<thinker>{}", "a<think>b</think>",
		"a\n</think>\n{}", " x \n  </THINK>\t{}", "a</think>\n{}", "{\"a\":\"\n</think>\n\"}", "a\n</think>b\n</think>\n{}", "x\n</think>",
	} {
		f.Add(s, uint8(3), true)
	}
	f.Fuzz(func(t *testing.T, s string, piece uint8, headless bool) {
		n, text, closed := splitThinking(s, headless)
		if n < 0 || n > len(s) {
			t.Fatalf("split %q: %d bytes of %d", s, n, len(s))
		}
		if open, _ := openTag(s); open == 0 && n != 0 && (!headless || !closed || !strings.Contains(s[:n], "</")) {
			t.Fatalf("split %q: no block at the start, yet %d bytes removed", s, n)
		}
		if n > 0 && (!strings.Contains(s[:n], text) || !closed && n != len(s)) {
			t.Fatalf("split %q: n %d, text %q, closed %v", s, n, text, closed)
		}
		st := &runState{a: &Agent{cfg: config{headlessThinking: headless}}}
		if headless {
			st.schema = anyJSON
		}
		msg := Message{Content: s}
		th := st.thinking(&msg)
		if removed := s[:len(s)-len(msg.Content)]; removed+msg.Content != s || th.Bytes != len(removed) || th.Inline != (n > 0) {
			t.Fatalf("thinking(%q): content %q, row %+v", s, msg.Content, th)
		}
		off := &runState{a: &Agent{cfg: config{inlineThinkingOff: true}}, schema: st.schema}
		msg = Message{Content: s}
		if th := off.thinking(&msg); msg.Content != s || th.Bytes != 0 {
			t.Fatalf("off, thinking(%q) changed it: %q, %+v", s, msg.Content, th)
		}

		step := max(int(piece%16), 1)
		scan := thinkScan{headless: headless}
		at, ok := 0, false
		for end := min(step, len(s)); ; end = min(end+step, len(s)) {
			if at, ok = scan.answer(s[:end]); ok || end == len(s) {
				break
			}
		}
		switch {
		case ok && at != n:
			t.Fatalf("scan of %q: the answer at %d, the split's at %d", s, at, n)
		case !ok && strings.TrimSpace(s[n:]) != "" && !maybeOpenTag(strings.TrimLeft(s, " \t\r\n")) && !(scan.nameless && n == 0):
			t.Fatalf("scan of %q: still thinking at its end, yet the split's answer is %q", s, s[n:])
		}
	})
}
