package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/enforcer-go/enforcer/events"
)

// generate calls the model with the messages to send, turning a panic into
// an error.
func (st *runState) generate(ctx context.Context) (resp Response, err error) {
	req := st.request()
	p := st.a.cfg.modelRetry
	for attempt := 1; ; attempt++ {
		if e := st.overBudget(false); e != nil {
			return Response{}, e
		}
		resp, err = st.call(ctx, req)
		st.spent(resp, err)
		if err == nil {
			return resp, nil
		}
		if context.Cause(ctx) == nil && st.unsupported(err) {
			// Asked again at once in the next mode ([WithAutoOutputMode]):
			// no retry, and no iteration.
			st.res.Usage.add(resp.Usage)
			req, attempt = st.request(), 0
			continue
		}
		if p == nil || attempt >= p.MaxAttempts || context.Cause(ctx) != nil {
			if st.escalateOnError(ctx, err) {
				st.res.Usage.add(resp.Usage)
				attempt = 0 // the next model's tries are its own
				continue
			}
			return resp, fmt.Errorf("%w: %w", ErrModel, err)
		}
		d, retry := st.a.schedule(p, attempt, err)
		if !retry {
			if st.escalateOnError(ctx, err) {
				st.res.Usage.add(resp.Usage)
				attempt = 0
				continue
			}
			return resp, fmt.Errorf("%w: %w", ErrModel, err)
		}
		ev := events.ModelRetry{TurnID: st.turn, Attempt: attempt, NextAttempt: attempt + 1, MaxAttempts: p.MaxAttempts, RetryDelay: d, ErrorKind: events.KindUnknown}
		var pe *ProviderError
		if errors.As(err, &pe) {
			ev.ErrorKind, ev.HTTPStatus, ev.System = pe.Kind, pe.status(), pe.System
		}
		st.a.record(ev)
		st.a.observeRetry(ctx, Retry{Kind: events.RetryModel, Attempt: attempt, MaxAttempts: p.MaxAttempts, Delay: d, Reason: retryReason(err), Err: err})
		st.a.cfg.logger.Debug("model retry scheduled", "turn", st.turn, "attempt", attempt, "delay", d, "error", err)
		st.res.Usage.add(resp.Usage)
		if werr := wait(ctx, d); werr != nil {
			return Response{}, werr
		}
	}
}

// request is the request to send: the contract in force, the messages
// not skipped.
func (st *runState) request() Request {
	req := Request{Tools: st.a.specs}
	if st.contract != nil {
		req.OutputSchema = st.contract.json
		if st.contract.tools != nil {
			req.Tools, req.RequireToolCall = st.contract.tools, true
		}
	}
	from := 0
	if f := st.format; f != nil && f.on {
		// A conversation of its own, with no tools but the output tools,
		// which follow the agent's in a contract's tools.
		from = f.from
		req.Tools = req.Tools[min(len(st.a.specs), len(req.Tools)):]
		if len(req.Tools) == 0 {
			req.Tools = nil
		}
	}
	if len(st.skip) == 0 {
		req.Messages = append([]Message(nil), st.res.Messages[from:]...)
	} else {
		req.Messages = make([]Message, 0, len(st.res.Messages)-from)
		for i, m := range st.res.Messages[from:] {
			if !st.skip[from+i] {
				req.Messages = append(req.Messages, m)
			}
		}
	}
	if st.a.cfg.autoTool != "" && (st.contract == nil || st.contract.tools == nil) {
		outputCallsAsText(req.Messages, st.a.cfg.autoTool)
	}
	return req
}

// outputCallsAsText rewrites, in msgs (the request's own copy), the calls
// of the output tool named tool as what they are to a model asked in text:
// the arguments as the assistant's text, the tool message answering a
// call (its correction) as a user message. A run that moved out of tool
// mode (to a model that takes no tools) sends no request holding a call
// of a tool it does not declare, which some providers refuse.
func outputCallsAsText(msgs []Message, tool string) {
	var ids map[string]bool
	for i, m := range msgs {
		if m.Role == RoleTool && ids[m.ToolCallID] {
			msgs[i] = Message{Role: RoleUser, Content: m.Content}
			continue
		}
		if !slices.ContainsFunc(m.ToolCalls, func(c ToolCall) bool { return c.Name == tool }) {
			continue
		}
		text, calls := m.Content, make([]ToolCall, 0, len(m.ToolCalls))
		for _, c := range m.ToolCalls {
			if c.Name != tool {
				calls = append(calls, c)
				continue
			}
			if ids == nil {
				ids = map[string]bool{}
			}
			ids[c.ID] = true
			if text != "" {
				text += "\n"
			}
			text += string(c.Arguments)
		}
		if len(calls) == 0 {
			calls = nil
		}
		msgs[i].Content, msgs[i].ToolCalls = text, calls
	}
}

// call makes one model call, streamed when the model can stream, turning
// a panic into an error, and keeps how long it took in st.latency. When
// ctx can end, the model runs on a goroutine of its own and call returns
// context.Cause(ctx) as soon as ctx ends, even while the model, ignoring
// ctx, goes on: its reply is dropped (see the package doc's
// Cancellation), and so is one that comes once ctx has ended. Only the
// model's own code runs there; st is read and written on the caller's
// goroutine alone.
func (st *runState) call(ctx context.Context, req Request) (resp Response, err error) {
	streamed := false
	if st.a.cfg.observer != nil {
		var started bool
		if ctx, started = st.a.modelStart(ctx, req); started {
			defer func() {
				st.a.modelEnd(ctx, ModelCall{Request: req, Response: resp, Err: err, Streamed: streamed, Cut: st.replyCut(), Latency: st.latency})
			}()
		}
	}
	start := st.a.cfg.now()
	defer func() {
		st.latency = max(st.a.cfg.now().Sub(start), 0)
		if r := recover(); r != nil {
			resp, err, st.cut, st.callCut = Response{}, fmt.Errorf("%w: %v", errModelPanic, r), nil, nil
		}
	}()
	st.cut, st.callCut = nil, nil
	model := st.model().m
	switch m, ok := model.(StreamingModel); {
	case ok:
		streamed = true
		resp, err = st.stream(ctx, m, req)
	case ctx.Done() == nil: // never cancelled: nothing to return early for
		return model.Generate(ctx, req)
	default:
		resp, err = generateUnlessDone(ctx, model, req)
	}
	if err == nil && ctx.Err() != nil {
		// The reply came as ctx ended: it is dropped, as one that comes
		// later is, however the two raced to this goroutine.
		resp, err, st.cut, st.callCut = Response{Usage: resp.Usage}, context.Cause(ctx), nil, nil
	}
	return resp, err
}

// spent counts one call of the model that answers, which gave resp and
// err, in the turn's spending, and keeps its input tokens for
// [WithBudget]'s proof when it reported them.
func (st *runState) spent(resp Response, err error) {
	at := st.spendAt()
	st.chain.spend.add(at, resp.Usage, st.price(resp.Usage))
	if err == nil && resp.Usage.InputTokens > 0 {
		st.lastInput, st.lastInputAt = resp.Usage.InputTokens, at
	}
}
