package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"

	"github.com/enforcer-go/enforcer/enforce"
)

// StreamingModel is a [Model] that can also stream its reply; the loop
// streams when the model has the method. Both methods must describe the
// same reply, and be safe for concurrent use.
//
// GenerateStream yields the reply's chunks in order and stops at the first
// error. A consumer that breaks out or cancels ctx ends the reply: the
// implementation must stop reading and release the connection. A stream
// the provider breaks off is an error, never a short reply.
//
// The loop reads no reply past a bound (see Bounds in the package doc).
type StreamingModel interface {
	Model
	// Bounds, in detail: an answer nothing can follow or change is the
	// text of a reply that has begun no tool call and is no refusal, in a
	// run that offers no tools and has no act-output step, or with
	// WithOutputTool the output tool's arguments (again without an
	// act-output step); at the byte past its bound the call is
	// cancelled, the answer kept up to it, and its row, if any, says how
	// far it got (Cut). The whole reply counts its text and every tool
	// call's ID, name and arguments, plus 64 bytes for each call it
	// begins; past it no tool runs. Within the bounds a reply reads as
	// Generate would give it, so a tool call or an answer a step shortens
	// works streamed or not.
	GenerateStream(ctx context.Context, req Request) iter.Seq2[Chunk, error]
}

// Chunk is one piece of a streamed reply. Each field continues the reply
// as described; a zero field adds nothing.
type Chunk struct {
	// Text continues the reply's text (Message.Content).
	Text string
	// Reasoning continues the thinking the provider gives apart from the
	// text (Message.Reasoning); ReasoningRaw, when not nil, is the
	// reply's Message.ReasoningRaw so far, and a later one replaces it.
	Reasoning    string
	ReasoningRaw json.RawMessage
	// Call continues one of the reply's tool calls.
	Call *CallDelta
	// Usage holds the counts known so far; a count above zero replaces
	// the one before it (providers send input tokens first and output
	// tokens at the end), and Detailed, once set, stays.
	Usage Usage
	// Stop and StopRaw say why the reply ended, when a chunk knows it;
	// a later non-empty value replaces an earlier one.
	Stop    StopReason
	StopRaw string
	// ReadBack, when not nil, is the reply's [Response.ReadBack] so far;
	// a later one replaces it.
	ReadBack []string
}

// CallDelta continues tool call number Index of the reply (0-based, in
// the order the calls began). ID and Name arrive once, when the call
// begins; Arguments is a fragment of the call's JSON arguments, appended
// to those before it.
type CallDelta struct {
	Index     int
	ID        string
	Name      string
	Arguments string
}

// stream makes one streamed model call and assembles the reply into the
// Response Generate would give. While the run may cut an answer (see
// [WithEarlyAbort]), or a watcher watches it, the answer is judged as it
// arrives, until a chunk says it is a refusal or was filtered: the reply's
// text, or with [WithOutputTool] the arguments of its first call of the
// output tool from when that call begins. At an early verdict stream
// stops reading, cancels the call, and returns the answer up to the byte
// that doomed it, with st.cut saying so. A watcher is shown the judge
// after each piece of the answer it read. Once ctx ends, stream
// reads no further chunk, even from a model that goes on yielding, and
// returns at once, even from one that blocks (see [readStream]). A reply
// that streamed to its end still as an answer is shown to the watcher
// once more, as the end of it. With early abort on, a tool call's
// arguments are judged too, and cut the same way, with st.callCut
// saying so (see [callJudge] for when).
func (st *runState) stream(ctx context.Context, m StreamingModel, req Request) (Response, error) {
	run := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := assembly{tool: st.outputTool()}
	var failed error
	j := st.newJudge(run, req)
	cj := st.newCallJudge()
	bound := st.answerBound()
	limit := max(bound, enforce.MaxAnswerBytes) // the whole reply's
	// The text is the answer as it stands, to be cut at the answer's
	// bound, only when nothing can follow it or change it: no tool
	// offered, no output tool, no act-output step.
	textIsAnswer := st.schema != nil && st.outputTool() == "" && len(req.Tools) == 0 && !st.a.cfg.outputSteps
	var degen *degenerate
	if st.a.cfg.degenerate != nil && st.schema != nil {
		degen = newDegenerate(*st.a.cfg.degenerate)
	}
	thinkDegen := st.thinkingDegenerate()
	size := 0 // bytes of text, reasoning and tool-call arguments read
	// think finds where the answer begins in the text, past its inline
	// thinking: nothing before it is judged, cut or watched.
	think := thinkScan{disabled: st.a.cfg.inlineThinkingOff, headless: st.headless()}
	idle := 0 // chunks that added no bytes
	// take reads one chunk and reports whether to read another.
	take := func(c Chunk, err error) bool {
		if err != nil {
			failed = err
			return false
		}
		if ctx.Err() != nil {
			// The run ended, and the model streams on (it should have
			// stopped): read no more of it.
			failed = context.Cause(ctx)
			return false
		}
		calls, before := len(r.calls), size
		c = r.trim(c, limit+1-size, bound)
		if err := r.add(c); err != nil {
			failed = err
			return false
		}
		size += len(c.Text) + len(c.Reasoning)
		if d := c.Call; d != nil {
			size += len(d.ID) + len(d.Name) + len(d.Arguments)
			if len(r.calls) > calls {
				size += callSize // a call begun holds memory, even with nothing in it
			}
		}
		if size == before {
			// A chunk of no bytes (empty, usage or stop only) grows no
			// bound: endless ones would run to the caller's deadline.
			if idle++; idle > maxIdleChunks {
				cancel()
				failed = fmt.Errorf("%w: more than %d chunks that add no text or tool-call bytes", errReplyEndless, maxIdleChunks)
				return false
			}
		}
		if j != nil && (c.Stop.withheld() || c.Call != nil && j.tool == "") {
			// A refusal or a filtered reply is not an answer: it is never
			// cut or watched, and the run ends with a RefusalError. A tool
			// call in prompted output: nothing is judged, nothing cut.
			j = nil
		}
		if j != nil && j.fresh(c, &r) {
			fed := j.fed
			var ce *enforce.CheckError
			var n, off int // n bytes of the answer, which begins at off
			if j.tool == "" {
				text := r.text.String()
				var ok bool
				if off, ok = think.answer(text); ok {
					ce, n = j.read(text[off:think.end(text)])
				}
			} else {
				ce, n = j.read(r.args[j.call].String())
			}
			// A reply that has said why it ended has come whole (a server
			// that does not stream, a framework that gives the reply at
			// its end): a cut would save nothing and say falsely that the
			// rest was not read, so the answer is judged whole instead.
			if ce != nil && j.cut && r.stop == "" {
				cancel() // before stopping: the provider sees the connection close at once
				st.cut = &enforce.Cut{Verdict: ce, Bytes: n, OutputTokens: max(r.usage.OutputTokens, 0)}
				r.keepAnswer(j.call, off+n)
				return false
			}
			// A doomed answer is not shown past what was read before the
			// verdict: the bytes that gave it are refused.
			if ce == nil && st.watch != nil && j.es != nil && j.fed > fed && !st.watch(st.schema, j.es, j.fed, j.attempt, false) {
				failed = context.Cause(ctx) // the watcher ended the run
				return false
			}
			if ce != nil {
				j = nil // doomed: the answer so far changes no more
			}
		}
		if cj != nil {
			// A reply that has said why it ended has come whole: judged
			// whole, as an answer is.
			if ce, n := cj.read(st, c, &r); ce != nil && r.stop == "" {
				cancel()
				st.callCut = &callCut{call: 0, cut: &enforce.Cut{Verdict: ce, Bytes: n, OutputTokens: max(r.usage.OutputTokens, 0)}}
				r.keepAnswer(0, n)
				return false
			}
		}
		if degen != nil && r.stop == "" {
			// A reply that has said why it ended has come whole, as for an
			// early verdict: it is judged whole.
			call, n, why, off := -1, 0, "", 0
			switch d := c.Call; {
			case c.Text != "" && r.tool == "" && len(r.calls) == 0: // the text is the answer in no mode with an output tool
				text := r.text.String()
				if o, ok := think.answer(text); ok {
					off = o
					n, why = degen.read(text[off:think.end(text)])
				}
			case d != nil && d.Arguments != "" && r.isAnswer(d.Index):
				call = d.Index
				n, why = degen.read(r.args[call].String())
			}
			if n > 0 {
				cancel()
				if kept := r.keepAnswer(call, off+n)[off:]; st.schema.Check(kept) != nil {
					st.cut = degenerateCut(n, why, r.usage)
				} // else a whole answer, then only blank space or repetition: taken as it is
				return false
			}
		}
		if thinkDegen != nil && r.stop == "" {
			if cut := thinkDegen.read(c, &r, &think); cut != nil {
				cancel()
				cut.OutputTokens = max(r.usage.OutputTokens, 0)
				st.cut = cut
				return false
			}
		}
		if c.Text != "" && textIsAnswer && len(r.calls) == 0 && !r.stop.withheld() && r.text.Len() > bound {
			// The answer is longer than the contract judges: the byte past
			// the bound decides its verdict whatever follows, as Check
			// decides it for the whole text. Cut it there, retries or not.
			// Thinking before it is not the answer, and counts only to the
			// reply's bound.
			if off, ok := think.answer(r.text.String()); ok && think.end(r.text.String())-off > bound {
				cancel()
				st.cut = st.tooLong(r.keepAnswer(-1, off+bound+1)[off:], r.usage)
				return false
			}
		}
		if d := c.Call; d != nil && st.schema != nil && !st.a.cfg.outputSteps &&
			r.isAnswer(d.Index) && r.args[d.Index].Len() > bound {
			// The output tool's arguments are the answer: cut them as the
			// text is cut above.
			cancel()
			st.cut = st.tooLong(r.keepAnswer(d.Index, bound+1), r.usage)
			return false
		}
		if size > limit {
			// No reply is read past its bound, so that a model that
			// writes without end, or calls tools without end, costs
			// bounded memory.
			cancel()
			failed = fmt.Errorf("%w: its text and tool calls' arguments are longer than %d bytes", errReplyTooLong, limit)
			return false
		}
		return true
	}
	if !readStream(run, ctx, m, req, take) {
		return Response{Usage: r.usage}, context.Cause(run)
	}
	if failed == nil && st.cut == nil && ctx.Err() == nil && st.watch != nil && j != nil && j.es != nil && !st.watch(st.schema, j.es, j.fed, j.attempt, true) {
		failed = context.Cause(ctx) // the watcher ended the run
	}
	if failed != nil {
		return Response{Usage: r.usage}, failed
	}
	return r.response(), nil
}

// answerBound is the most bytes a streamed answer may hold: the
// contract's answer size bound ([enforce.Schema.MaxAnswerBytes]), or
// without a contract [enforce.MaxAnswerBytes]. Past it, an answer fails
// for its size alone, whatever follows.
func (st *runState) answerBound() int {
	if st.schema == nil {
		return enforce.MaxAnswerBytes
	}
	return st.schema.MaxAnswerBytes()
}

// tooLong is the cut of an answer read to the byte past the bound: its
// verdict is Check's, which fails it for its size.
func (st *runState) tooLong(answer string, u Usage) *enforce.Cut {
	var ce *enforce.CheckError
	errors.As(st.schema.Check(answer), &ce)
	return &enforce.Cut{Verdict: ce, Bytes: len(answer), OutputTokens: max(u.OutputTokens, 0)}
}

// callSize is what each tool call a reply begins counts toward the reply's
// bound, beside its ID, name and arguments: about the memory it holds.
const callSize = 64

// maxIdleChunks is how many chunks that add no bytes (see
// [StreamingModel]) one streamed reply may hold.
const maxIdleChunks = 1 << 16
