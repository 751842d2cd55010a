package agent

import (
	"errors"
	"strings"

	"github.com/enforcer-go/enforcer/enforce"
)

// callJudge reads a streamed reply's first tool call's arguments with an
// [enforce.Incremental] of the tool's parameters schema, while a cut at
// its early verdict loses nothing the run could use: the call is the
// only one the reply has begun. (Its text is kept as far as it came, and
// a reply that calls a tool has no answer in its text.) The call's row
// then carries the verdict the whole call would get (semantics 13).
type callJudge struct {
	es *enforce.Incremental
	// gated: the tool's repairs hold enforce.RepairCoerce, and no byte
	// but blank space has come yet (lead bytes of it). Arguments written
	// as one JSON string are read as the object it holds, which no
	// Incremental foresees, so a call whose first byte is '"' is judged
	// only whole.
	gated bool
	lead  int
	fed   int  // bytes of the arguments written to es
	over  bool // it judges no further in this reply
}

// newCallJudge returns a judge for the reply's calls, or nil when an
// early verdict would cut nothing: early abort is off, or the agent has
// no tool.
func (st *runState) newCallJudge() *callJudge {
	if !st.a.cfg.earlyAbort || len(st.a.cfg.toolIndex) == 0 {
		return nil
	}
	return &callJudge{}
}

// read judges the first call's arguments grown by chunk c, just added to
// r, and returns the early verdict with the bytes of the arguments read
// to give it; nil while the call may pass, or once it may no longer be
// cut.
func (cj *callJudge) read(st *runState, c Chunk, r *assembly) (*enforce.CheckError, int) {
	if cj.over {
		return nil, 0
	}
	if len(r.calls) > 1 {
		// A second call began, which may be one the run can use.
		cj.over, cj.es = true, nil
		return nil, 0
	}
	if d := c.Call; d == nil || d.Index != 0 {
		return nil, 0
	}
	if cj.es == nil {
		name := r.calls[0].Name
		if name == "" {
			return nil, 0 // its arguments wait for it
		}
		i, ok := st.a.cfg.toolIndex[name]
		if !ok || name == r.tool {
			// No tool of that name (answered unrun), or the output
			// tool's: its arguments are the answer, judged as one.
			cj.over = true
			return nil, 0
		}
		s := st.a.cfg.tools[i].args
		cj.es, cj.gated = s.Stream(), s.Repairs()&enforce.RepairCoerce != 0
	}
	args := r.args[0].String()
	if cj.gated {
		// Only what arrived since the last read is scanned.
		rest := strings.TrimLeft(args[cj.lead:], " \t\r\n")
		cj.lead = len(args) - len(rest)
		switch {
		case rest == "":
			return nil, 0
		case rest[0] == '"':
			cj.over, cj.es = true, nil
			return nil, 0
		}
		cj.gated = false
	}
	if cj.fed == len(args) {
		return nil, 0
	}
	n, err := cj.es.WriteString(args[cj.fed:])
	cj.fed += n
	var ce *enforce.CheckError
	if errors.As(err, &ce) {
		cj.over, cj.es = true, nil
		return ce, cj.fed
	}
	if err != nil {
		cj.over, cj.es = true, nil // not a verdict: judge no further
	}
	return nil, 0
}

// callCut is a reply's tool call stopped at its arguments' early verdict.
type callCut struct {
	call int // its index in the reply
	cut  *enforce.Cut
}

// cutOf is the cut of the latest reply's call i, nil when it was not cut.
func (st *runState) cutOf(i int) *enforce.Cut {
	if c := st.callCut; c != nil && c.call == i {
		return c.cut
	}
	return nil
}

// replyCut is the latest reply's cut, of its answer or of a call's
// arguments; nil when it was read whole.
func (st *runState) replyCut() *enforce.Cut {
	if st.callCut != nil {
		return st.callCut.cut
	}
	return st.cut
}
