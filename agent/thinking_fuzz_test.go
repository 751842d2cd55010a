package agent

import (
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// FuzzThinking holds the inline-thinking splitter to its word: it never
// panics; the thinking removed and the answer left are the reply's text,
// every byte of it, in order (but a harmony final message's stop
// marker); a text that begins with no thinking block or harmony analysis
// header is left as it is (unless, headless, it holds a closing tag
// alone on its line); and the streamed scan, fed the text in pieces,
// puts the answer where the whole text's split does.
// anyJSON is a JSON contract any value keeps.
var anyJSON, _ = enforce.CompileSchema([]byte(`{}`))

func FuzzThinking(f *testing.F) {
	for _, s := range []string{
		"", "{}", " <think>a</think>\n{}", "<think>unclosed", "<THINKING>x</thinking> y",
		"<reasoning></reasoning>", "<think>a</thinking>b</think>c", "<thi", "<think>a</thi", "\n\n", "<think>x</think>  ",
		"<thinker>{}", "a<think>b</think>",
		"a\n</think>\n{}", " x \n  </THINK>\t{}", "a</think>\n{}", "{\"a\":\"\n</think>\n\"}", "a\n</think>b\n</think>\n{}", "x\n</think>",
		"<|channel|>analysis<|message|>a<|end|><|start|>assistant<|channel|>final<|message|>{}<|return|>",
		"<|start|>assistant<|channel|>analysis<|message|>a<|end|><|start|>assistant<|channel|>analysis<|message|>b<|end|><|start|>assistant<|channel|>final<|message|>{}<|end|>",
		"<|channel|>analysis<|message|>cut", "<|channel|>analysis<|message|>a<|end|><|start|>assist", "<|chan",
		"<|channel|>analysis<|message|>a<|end|><|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{}<|call|>",
		"{\"a\":\"<|channel|>analysis<|message|>a<|end|><|start|>assistant<|channel|>final<|message|>\"}",
		"<|channel|>analysis<|message|>a<|end|><|start|>assistant<|channel|>final<|message|>{}<|ret",
	} {
		f.Add(s, uint8(3), true)
	}
	f.Fuzz(func(t *testing.T, s string, piece uint8, headless bool) {
		n, text, closed := splitThinking(s, headless)
		if n < 0 || n > len(s) {
			t.Fatalf("split %q: %d bytes of %d", s, n, len(s))
		}
		if open, _ := openTag(s); open == 0 && harmonyOpen(s) == 0 && n != 0 && (!headless || !closed || !strings.Contains(s[:n], "</")) {
			t.Fatalf("split %q: no block at the start, yet %d bytes removed", s, n)
		}
		// Harmony's analysis messages are joined by a blank line.
		if n > 0 && (!strings.Contains(s[:n], text) && (harmonyOpen(s) == 0 || len(text) > n) || !closed && n != len(s)) {
			t.Fatalf("split %q: n %d, text %q, closed %v", s, n, text, closed)
		}
		st := &runState{a: &Agent{cfg: config{headlessThinking: headless}}}
		if headless {
			st.schema = anyJSON
		}
		msg := Message{Content: s}
		th := st.thinking(&msg)
		rest, stop := strings.CutPrefix(s[min(th.Bytes, len(s)):], msg.Content)
		if !stop || th.Bytes != n || th.Inline != (n > 0) ||
			rest != "" && (harmonyOpen(s) == 0 || !closed || rest != harmonyReturn && rest != harmonyEnd) {
			t.Fatalf("thinking(%q): content %q, row %+v", s, msg.Content, th)
		}
		answer := msg.Content
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
		lead := strings.TrimLeft(s, " \t\r\n")
		switch {
		case ok && at != n:
			t.Fatalf("scan of %q: the answer at %d, the split's at %d", s, at, n)
		case ok && (scan.end(s) < at || !strings.HasPrefix(answer, s[at:scan.end(s)])):
			t.Fatalf("scan of %q: the answer %q, the split's %q", s, s[at:scan.end(s)], answer)
		case !ok && strings.TrimSpace(s[n:]) != "" && !maybeOpenTag(lead) && !maybeHarmony(lead) && !(scan.nameless && n == 0):
			t.Fatalf("scan of %q: still thinking at its end, yet the split's answer is %q", s, s[n:])
		}
	})
}
