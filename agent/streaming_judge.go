package agent

import (
	"context"
	"errors"
	"strings"

	"github.com/enforcer-go/enforcer/enforce"
)

// judge reads a streamed answer with an [enforce.Incremental]: the reply's
// text in prompted output, or with [WithOutputTool] the arguments of the
// reply's first call of the output tool, from when that call begins.
type judge struct {
	es  *enforce.Incremental
	cut bool // an early verdict cuts the answer
	// tool is the output tool's name in tool-call output, "" in prompted
	// output. Until the answer's call begins, es is nil and call is -1;
	// then call is its index in the reply.
	tool   string
	call   int
	schema *enforce.Schema
	// gated: tools were offered, and the text has not yet shown that it
	// begins a JSON object or array (until it does, a watcher is not
	// shown it: it is most likely prose before a tool call).
	gated bool
	lead  int    // while gated: bytes of the text already seen to be whitespace
	fed   int    // bytes of the text written to es
	s     string // the text so far
	// attempt numbers the row the answer will have if it is a final one.
	attempt int
	// ctx and try are what the validators of one member are asked with
	// as the answer streams (enforce.Schema.StreamValidating); ctx is nil
	// without a ledger: then nothing is cut, and validators judge at the
	// end.
	ctx context.Context
	try enforce.Try
	// el reads the answer through es when the run delivers elements
	// ([RunElements]): elems opens it.
	el    *enforce.Elements
	elems *elementsHook
}

// stream is the judge's enforce.Incremental for an answer.
func (j *judge) stream() *enforce.Incremental {
	var es *enforce.Incremental
	if (j.cut || j.elems != nil) && j.ctx != nil {
		es = j.schema.StreamValidating(j.ctx, j.try)
	} else {
		es = j.schema.Stream()
	}
	j.el = j.elems.open(es, j.attempt)
	return es
}

// newJudge returns a judge for the call's reply, or nil when there is
// nothing to judge it for: the run may not cut it (see [WithEarlyAbort]
// for when it may), and nothing watches it.
func (st *runState) newJudge(ctx context.Context, req Request) *judge {
	a := st.a
	if st.schema == nil {
		return nil // no contract: nothing to judge the answer by
	}
	cut := a.cfg.earlyAbort && st.ledger != nil && st.ledger.RetriesLeft() > 0 &&
		st.res.Iterations < a.cfg.maxIterations && !a.cfg.outputSteps
	tool := st.outputTool()
	// In prompted output with tools offered, any text may yet be followed
	// by a tool call ("[Looking that up]" and a call), so no verdict on
	// the text is sure to be about the answer: nothing is cut. In
	// tool-call output the text is never the answer, and the arguments of
	// the output tool's first call are the answer from the moment that
	// call begins, whatever else the reply offers or calls: they are cut.
	cut = cut && (tool != "" || len(req.Tools) == 0)
	if !cut && st.watch == nil {
		return nil
	}
	j := &judge{cut: cut, tool: tool, call: -1, schema: st.schema, attempt: 1, elems: elementsOf(ctx)}
	if st.ledger != nil {
		j.attempt += len(st.ledger.Attempts())
		// The validators of one member are asked as it closes, where the
		// answer may be cut, as the ledger will ask them at its end.
		j.ctx, j.try = ctx, enforce.Try{Attempt: j.attempt, RetriesLeft: st.ledger.RetriesLeft()}
	} else if j.elems != nil {
		// An element is delivered once the validators of its members
		// found no issue in it.
		j.ctx, j.try = ctx, enforce.Try{Attempt: 1}
	}
	if tool == "" {
		j.es, j.gated = j.stream(), len(req.Tools) > 0
	}
	return j
}

// fresh reports whether chunk c, just added to r, grew the answer the
// judge reads: the text in prompted output; in tool-call output the
// arguments of the reply's first call of the output tool, which the
// judge begins to read when that call begins. A call is that one only
// once every call before it has its name (a name, once given, never
// changes), so the answer judged is the one the run will take.
func (j *judge) fresh(c Chunk, r *assembly) bool {
	if j.tool == "" {
		return c.Text != ""
	}
	d := c.Call
	if d == nil {
		return false
	}
	if j.call < 0 {
		if !r.isAnswer(d.Index) || !r.namedBefore(d.Index) {
			return false
		}
		j.call = d.Index
		j.es = j.stream()
	}
	return d.Index == j.call && d.Arguments != ""
}

// read judges text (the reply's text so far, grown since the last call)
// and returns the early verdict with how many bytes of text it read to
// give it, or nil while the answer may still pass. A gated judge that
// sees the text begin with anything but '{' or '[' reads no more.
func (j *judge) read(text string) (*enforce.CheckError, int) {
	j.s = text
	if j.gated {
		// Only what arrived since the last read is scanned: a model that
		// streams whitespace a byte at a time costs linear time.
		rest := strings.TrimLeft(text[j.lead:], " \t\r\n")
		j.lead = len(text) - len(rest)
		switch {
		case rest == "":
			return nil, 0
		case rest[0] != '{' && rest[0] != '[':
			j.es, j.el, j.gated = nil, nil, false // may become a tool call: never cut
		default:
			j.gated = false
		}
	}
	if j.es == nil || j.fed == len(text) {
		return nil, 0
	}
	var n int
	var err error
	if j.el != nil {
		n, err = j.el.WriteString(text[j.fed:])
	} else {
		n, err = j.es.WriteString(text[j.fed:])
	}
	j.fed += n
	var ce *enforce.CheckError
	if errors.As(err, &ce) {
		return ce, j.fed
	}
	if err != nil {
		j.es, j.el = nil, nil // not a verdict (a closed Incremental): judge no further
	}
	return nil, 0
}

// watcher is shown a streamed answer as it forms: the judge after each
// piece of the answer (the text, or the output tool's arguments), the
// bytes it has read, and the number of the row the answer will have; and once
// more with end set when the reply has streamed to its end, still an
// answer being judged (in prompted output no tool call; no refusal; not
// doomed). It returns false to end the run, having cancelled its context.
type watcher func(s *enforce.Schema, es *enforce.Incremental, read, attempt int, end bool) bool
