package agent

import (
	"strings"

	"github.com/enforcer-go/enforcer/enforce"
)

// WithInlineThinking turns inline thinking on (the default) or off. On,
// the thinking a reply's text begins with — <think>, <thinking> or
// <reasoning>, any case, to its closing tag, or gpt-oss's harmony
// analysis channel to its final channel — moves to Message.Reasoning
// before anything reads the answer, streamed or not; a block never closed
// is all thinking. Off, the text is the answer as written, and
// [WithHeadlessThinking] does nothing.
func WithInlineThinking(on bool) Option {
	return optionFunc(func(c *config) { c.inlineThinkingOff = !on })
}

// WithHeadlessThinking reads a reply whose chat template opened its
// thinking block in the prompt (DeepSeek R1 and Qwen3 on a server with no
// reasoning parser): where the answer is one JSON value, the text before
// a </think> alone on its line, with no opening tag, is thinking. Streamed,
// a reply that begins with neither a JSON value nor a fence is then not
// judged until that tag or its end.
func WithHeadlessThinking() Option {
	return optionFunc(func(c *config) { c.headlessThinking = true })
}

// thinkTags are the tags a reply's inline thinking may be written in.
var thinkTags = [...]string{"think", "thinking", "reasoning"}

// splitThinking finds the thinking written inline at the start of s: blank
// space, an opening tag of thinkTags (ASCII case ignored), its text, the
// matching closing tag and the blank space after it. It returns how many
// bytes of s that is (0 when s begins with no such block), the text
// between the tags without its surrounding blank space, and whether the
// block closed; a block never closed runs to the end of s. s[n:] is the
// answer, so no byte is lost or added.
func splitThinking(s string, headless bool) (n int, text string, closed bool) {
	if open := harmonyOpen(s); open != 0 {
		return splitHarmony(s, open)
	}
	open, name := openTag(s)
	if open == 0 {
		if headless {
			return splitHeadless(s)
		}
		return 0, "", false
	}
	at := indexCloseTag(s, open, name)
	if at < 0 {
		return len(s), strings.TrimSpace(s[open:]), false
	}
	end := at + len(name) + 3
	return end + blanks(s[end:]), strings.TrimSpace(s[open:at]), true
}

// openTag returns the end of the opening tag s begins with, after blank
// space, and the tag's name; 0 when s begins with none.
func openTag(s string) (int, string) {
	i := blanks(s)
	for _, name := range thinkTags {
		end := i + len(name) + 2
		if len(s) >= end && s[i] == '<' && s[end-1] == '>' && strings.EqualFold(s[i+1:end-1], name) {
			return end, name
		}
	}
	return 0, ""
}

// indexCloseTag is the index of the first "</name>" (ASCII case ignored)
// in s at or after from, or -1.
func indexCloseTag(s string, from int, name string) int {
	for i := from; ; {
		k := strings.Index(s[i:], "</")
		if k < 0 {
			return -1
		}
		i += k
		if end := i + len(name) + 3; end <= len(s) && s[end-1] == '>' && strings.EqualFold(s[i+2:end-1], name) {
			return i
		}
		i += 2
	}
}

// splitHeadless finds thinking whose opening tag the prompt held, as
// DeepSeek R1's and Qwen3's chat templates end it with "<think>\n": the
// text up to the first closing tag that is the one reading (headlessClose).
// It returns what [splitThinking] returns.
func splitHeadless(s string) (n int, text string, closed bool) {
	if answerFirst(s) {
		return 0, "", false
	}
	for from := 0; ; {
		at := indexCloseTag(s, from, "think")
		if at < 0 {
			return 0, "", false
		}
		end := at + len("</think>")
		if headlessClose(s, at) && (end == len(s) || blanks(s[end:end+1]) == 1) {
			return end + blanks(s[end:]), strings.TrimSpace(s[:at]), true
		}
		from = at + 2
	}
}

// answerFirst reports whether s, after blank space, begins as a JSON
// object, array or string, or a markdown fence, does: an answer, which
// may hold a closing tag in a string, not thinking.
func answerFirst(s string) bool {
	i := blanks(s)
	return i < len(s) && strings.IndexByte("{[\"`~", s[i]) >= 0
}

// headlessClose reports whether the closing tag at s[at:] begins its
// line (blank space before it on the line): no JSON string holds a line
// break, so such a tag is no answer's text. splitHeadless wants blank
// space or the end after it too, so the tag is alone on its line.
func headlessClose(s string, at int) bool {
	i := at
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t' || s[i-1] == '\r') {
		i--
	}
	return i == 0 || s[i-1] == '\n'
}

// blanks is the length of the blank space s begins with.
func blanks(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t\r\n"))
}

// thinking moves the inline thinking at the start of msg's text into its
// Reasoning (after any the adapter gave) unless the agent reads none, and
// says what the reply's thinking was, for its row.
func (st *runState) thinking(msg *Message) enforce.Thinking {
	t := enforce.Thinking{Bytes: len(msg.Reasoning)}
	if st.a.cfg.inlineThinkingOff {
		return t
	}
	n, text, closed := splitThinking(msg.Content, st.headless())
	if n == 0 {
		return t
	}
	end := len(msg.Content)
	if closed && harmonyOpen(msg.Content) != 0 {
		end -= harmonyStop(msg.Content[n:], false) // a marker, not the answer's
	}
	msg.Content = msg.Content[n:end]
	t.Bytes, t.Inline = t.Bytes+n, true
	switch {
	case msg.Reasoning == "":
		msg.Reasoning = text
	case text != "":
		msg.Reasoning += "\n\n" + text
	}
	return t
}

// headless reports whether a reply's text may hold thinking whose
// opening tag the prompt held ([WithHeadlessThinking]): only where the
// answer is one JSON value, which text before a closing tag alone on its
// line cannot be (a text answer may quote the tag, and a label is a bare
// word), and in the free step before a [WithFormatStep], whose thinking
// would otherwise be quoted to the formatter as the answer.
func (st *runState) headless() bool {
	if !st.a.cfg.headlessThinking {
		return false
	}
	s := st.schema
	if st.format != nil {
		s = st.format.schema
	}
	return s != nil && s.Kind() == ""
}

// thinkScan finds where a streamed reply's answer begins, past its inline
// thinking, reading each byte of the text a bounded number of times.
type thinkScan struct {
	off      int
	open     int    // where the open block's text begins
	name     string // the open block's tag, "" before one is seen
	from     int    // where to look next for the block's end
	closed   bool   // the block has closed; blank space follows until off
	decided  bool
	disabled bool
	headless bool // the text may begin with thinking whose opening tag the prompt held
	nameless bool // it does: the block has no opening tag
	harmony  bool // the text begins with a harmony analysis message
	ended    bool // harmony: the analysis message has ended, a header may follow
}

// answer reports where the answer begins in s, the reply's text so far
// (each call's s extends the last's), and false while the text may still
// be thinking: a prefix of an opening tag, an open block, or blank space
// before the answer's first byte. What it reports agrees with
// splitThinking on every later text.
func (t *thinkScan) answer(s string) (int, bool) {
	switch {
	case t.disabled:
		return 0, true
	case t.decided:
		return t.off, true
	case t.name == "":
		// Blank space is skipped once: a model may stream it a byte at a
		// time.
		t.from += blanks(s[t.from:])
		if t.from == len(s) {
			return 0, false
		}
		open, name := openTag(s[t.from:])
		hopen := harmonyOpen(s[t.from:])
		switch {
		case hopen != 0:
			t.name, t.harmony, t.from = "harmony", true, t.from+hopen
		case open != 0:
			t.name, t.from = name, t.from+open
		case maybeOpenTag(s[t.from:]) || maybeHarmony(s[t.from:]):
			return 0, false
		case t.headless && !answerFirst(s[t.from:]):
			// Thinking until a closing tag alone on its line, or the
			// reply's end, says otherwise (splitHeadless).
			t.name, t.nameless = "think", true
		default:
			t.decided = true
			return 0, true
		}
		t.open = t.from
	}
	if t.harmony {
		return t.harmonyAnswer(s)
	}
	for !t.closed {
		at := indexCloseTag(s, t.from, t.name)
		if at < 0 {
			// A closing tag may be split across pieces: look again from
			// where it may begin.
			t.from = max(t.from, len(s)-len(t.name)-2)
			return 0, false
		}
		end := at + len(t.name) + 3
		if t.nameless {
			if end == len(s) {
				t.from = at // what follows the tag decides
				return 0, false
			}
			if !headlessClose(s, at) || blanks(s[end:end+1]) == 0 {
				t.from = at + 2
				continue
			}
		}
		t.closed, t.from = true, end
	}
	t.from += blanks(s[t.from:])
	if t.from == len(s) {
		return 0, false
	}
	t.off, t.decided = t.from, true
	return t.off, true
}

// harmonyAnswer is answer for a reply that began with a harmony analysis
// message: it agrees with splitHarmony.
func (t *thinkScan) harmonyAnswer(s string) (int, bool) {
	for {
		if !t.ended {
			at := strings.Index(s[t.from:], harmonyEnd)
			if at < 0 {
				// The marker may be split across pieces.
				t.from = max(t.from, len(s)-len(harmonyEnd)+1)
				return 0, false
			}
			t.from, t.ended = t.from+at+len(harmonyEnd), true
		}
		t.from += blanks(s[t.from:]) // read once, however it streams
		next, end := harmonyNext(s, t.from)
		switch next {
		case harmonyMore:
			return 0, false
		case harmonyToAnalysis:
			t.from, t.ended = end, false
			continue
		case harmonyToFinal:
			t.off = end
		} // else not the shape read: the text is the answer as written
		t.closed, t.decided = true, true
		return t.off, true
	}
}

// end is where the answer in s ends, after answer reported its start:
// before the stop marker, or what may begin one, that ends a harmony
// final message (splitHarmony drops it), else at the end of s.
func (t *thinkScan) end(s string) int {
	if !t.harmony || t.off == 0 {
		return len(s)
	}
	return len(s) - harmonyStop(s[t.off:], true)
}

// maybeOpenTag reports whether s, not blank, is the beginning of an
// opening tag of thinkTags, which more text may complete.
func maybeOpenTag(s string) bool {
	for _, name := range thinkTags {
		tag := "<" + name + ">"
		if len(s) < len(tag) && strings.EqualFold(s, tag[:len(s)]) {
			return true
		}
	}
	return false
}

// thinking reports where the text of the open inline block begins, and
// false when no block is open (none began, or it closed): call it after
// answer, with the same text.
func (t *thinkScan) thinking() (int, bool) {
	return t.open, !t.disabled && t.name != "" && !t.closed
}

// thinkingDegenerate watches a streamed reply's thinking for
// [Degenerate].Thinking: the inline block and the reasoning given apart,
// each read as a text of its own.
type thinkingDegenerate struct{ inline, apart *degenerate }

// thinkingDegenerate is the watch for the run's degenerate stop, nil
// when it does not read thinking.
func (st *runState) thinkingDegenerate() *thinkingDegenerate {
	d := st.a.cfg.degenerate
	if d == nil || !d.Thinking || st.schema == nil {
		return nil
	}
	return &thinkingDegenerate{inline: newDegenerate(*d), apart: newDegenerate(*d)}
}

// read reads the thinking chunk c grew, and when it has degenerated cuts
// the reply there (no answer has begun) and returns the cut.
func (g *thinkingDegenerate) read(c Chunk, r *assembly, think *thinkScan) *enforce.Cut {
	switch {
	case c.Text != "" && len(r.calls) == 0:
		text := r.text.String()
		think.answer(text)
		at, open := think.thinking()
		if !open {
			return nil
		}
		if n, why := g.inline.read(text[at:]); n > 0 {
			r.keepAnswer(-1, at+n)
			return thinkingCut(n, why, Usage{})
		}
	case c.Reasoning != "" && r.text.Len() == 0 && len(r.calls) == 0:
		if n, why := g.apart.read(r.reasoning.String()); n > 0 {
			kept := r.reasoning.String()[:n]
			r.reasoning.Reset()
			r.reasoning.WriteString(kept)
			return thinkingCut(n, why, Usage{})
		}
	}
	return nil
}

// answerInReasoning is the answer a reply left in the reasoning it gave
// apart, its text empty (vllm-project/vllm#48863): the one JSON value the
// reasoning ends with, found as [enforce.RepairProse] finds a value in
// prose, that keeps the contract as written. Found, the row says so
// ([enforce.Thinking].Answer); it is the answer judged only under
// RepairProse, since reading it is a mend, and never in place of an
// output tool's call. It returns content otherwise.
func (st *runState) answerInReasoning(content, apart string, stop StopReason) string {
	s := st.schema
	if s == nil || s.Kind() != "" || apart == "" || stop == StopLength || st.cut != nil || st.outputTool() != "" || strings.TrimSpace(content) != "" {
		return content
	}
	text, applied := s.WithRepairs(enforce.RepairProse).Repaired(apart)
	if applied != enforce.RepairProse || !strings.HasSuffix(strings.TrimRight(apart, " \t\r\n"), text) || s.WithRepairs(0).Check(text) != nil {
		return content
	}
	st.thought.Answer = true
	if s.Repairs()&enforce.RepairProse == 0 {
		return content
	}
	return text
}

// gpt-oss's harmony response format (openai/harmony), as a server with no
// harmony parser passes it in the text: the special tokens written out.
// An assistant's reply is "<|channel|>analysis<|message|>" (the prompt
// held "<|start|>assistant", which some servers repeat), the thinking,
// "<|end|>", then "<|start|>assistant<|channel|>final<|message|>" and the
// answer, ended by "<|return|>" (or "<|end|>").
const (
	harmonyAssistant = "<|start|>assistant"
	harmonyAnalysis  = "<|channel|>analysis<|message|>"
	harmonyFinal     = harmonyAssistant + "<|channel|>final<|message|>"
	harmonyEnd       = "<|end|>"
	harmonyReturn    = "<|return|>"
)

// harmonyOpen returns the end of the analysis header s begins with,
// after blank space, and 0 when s begins with none: only a text that
// begins so is ever read as harmony.
func harmonyOpen(s string) int {
	i := blanks(s)
	if strings.HasPrefix(s[i:], harmonyAssistant) {
		i += len(harmonyAssistant)
	}
	if strings.HasPrefix(s[i:], harmonyAnalysis) {
		return i + len(harmonyAnalysis)
	}
	return 0
}

// maybeHarmony reports whether s, not blank, is the beginning of an
// analysis header, which more text may complete.
func maybeHarmony(s string) bool {
	return len(s) < len(harmonyAnalysis) && strings.HasPrefix(harmonyAnalysis, s) ||
		len(s) < len(harmonyAssistant+harmonyAnalysis) && strings.HasPrefix(harmonyAssistant+harmonyAnalysis, s)
}

// What follows an analysis message's "<|end|>".
const (
	harmonyOther      = iota // anything else: not the shape read
	harmonyMore              // the beginning of a header, or nothing yet
	harmonyToAnalysis        // another analysis message
	harmonyToFinal           // the final message: the answer
)

// harmonyNext says what follows the analysis message that ended at
// s[at:], past blank space, and where the header it found ends.
func harmonyNext(s string, at int) (int, int) {
	at += blanks(s[at:])
	rest := s[at:]
	switch analysis := harmonyAssistant + harmonyAnalysis; {
	case strings.HasPrefix(rest, harmonyFinal):
		return harmonyToFinal, at + len(harmonyFinal)
	case strings.HasPrefix(rest, analysis):
		return harmonyToAnalysis, at + len(analysis)
	case strings.HasPrefix(harmonyFinal, rest) || strings.HasPrefix(analysis, rest):
		return harmonyMore, 0
	}
	return harmonyOther, 0
}

// splitHarmony is splitThinking for a text whose analysis header ends at
// open: the analysis messages are the thinking, to the final message's
// header. A text cut before that header is all thinking; one where
// anything else follows an analysis message (a commentary message, a
// tool call) is left as it is.
func splitHarmony(s string, open int) (n int, text string, closed bool) {
	var texts []string
	add := func(t string) {
		if t = strings.TrimSpace(t); t != "" {
			texts = append(texts, t)
		}
	}
	for i := open; ; {
		at := strings.Index(s[i:], harmonyEnd)
		if at < 0 {
			add(s[i:])
			return len(s), strings.Join(texts, "\n\n"), false
		}
		add(s[i : i+at])
		switch next, end := harmonyNext(s, i+at+len(harmonyEnd)); next {
		case harmonyToFinal:
			return end, strings.Join(texts, "\n\n"), true
		case harmonyToAnalysis:
			i = end
		case harmonyMore:
			return len(s), strings.Join(texts, "\n\n"), false
		default:
			return 0, "", false
		}
	}
}

// harmonyStop is the length of the stop marker the final message a ends
// with ("<|return|>" or "<|end|>"), 0 when none; partial, a beginning of
// one at the end of a streamed text counts too, as more may complete it.
func harmonyStop(a string, partial bool) int {
	n := 0
	for _, m := range [...]string{harmonyReturn, harmonyEnd} {
		if strings.HasSuffix(a, m) {
			return len(m)
		}
		for k := min(len(a), len(m)-1); partial && k > n; k-- {
			if strings.HasSuffix(a, m[:k]) {
				n = k
			}
		}
	}
	return n
}
