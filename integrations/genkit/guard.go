package genkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/firebase/genkit/go/ai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/integrations/internal/glue"
)

// Guard holds the model calls of one Genkit generate call (ai.Generate,
// genkit.Generate, a prompt's Execute) to enforcer's output contract, through
// the model middleware [Guard.Middleware] gives. Use one per call; it
// is safe for concurrent use by the call's own goroutines.
type Guard struct {
	opts options

	mu        sync.Mutex
	schema    *enforce.Schema
	ledger    *enforce.Ledger
	iteration int
	usage     agent.Usage
}

// New returns a Guard; with no options, each final answer is judged once
// and no failed model call is retried. An invalid option is an error
// matching agent.ErrInvalidOption.
func New(opts ...Option) (*Guard, error) {
	g := &Guard{}
	for _, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("%w: genkit: a nil Option", agent.ErrInvalidOption)
		}
		if err := o.apply(&g.opts); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// Middleware is the Guard as Genkit model middleware, for
// ai.WithMiddleware. Each model call Genkit makes passes through it.
// A reply with tool requests goes back to Genkit, which runs the tools.
// A final answer under [Format] is judged against the contract; one that
// fails with retries left is followed, inside the same model call, by
// the failed answer and a corrective user turn, and the model is asked
// again; with none left the call fails with the *enforce.OutputError.
// Streamed, an answer is cut at the first byte that dooms it (when the
// request offers no tools: a reply may begin with text before its tool
// requests), and a corrective turn is passed on as a chunk of role user,
// so a new message index begins. The response returned carries the
// request that led to it (corrective turns included) and the usage of
// every call made for it.
func (g *Guard) Middleware() ai.ModelMiddleware {
	return func(next ai.ModelFunc) ai.ModelFunc {
		return func(ctx context.Context, req *ai.ModelRequest, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			return g.generate(ctx, next, req, cb)
		}
	}
}

// Attempts returns a row for each final answer judged so far, in order:
// nil when none was.
func (g *Guard) Attempts() []enforce.Attempt {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ledger == nil {
		return nil
	}
	return g.ledger.Attempts()
}

// Usage is every model call's usage so far: tool turns, failed answers
// and corrective turns included, as agent.Result.Usage counts a run's.
func (g *Guard) Usage() agent.Usage {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.usage
}

func (g *Guard) generate(ctx context.Context, next ai.ModelFunc, req *ai.ModelRequest, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
	s, err := contract(req)
	if err != nil {
		return nil, err
	}
	var spent ai.GenerationUsage
	for {
		c, err := g.call(ctx, next, req, cb, s)
		if err != nil {
			return nil, err
		}
		g.mu.Lock()
		g.iteration++
		iteration := g.iteration
		cost := g.spend(&spent, c.resp)
		g.mu.Unlock()
		if s == nil || c.resp != nil && len(c.resp.ToolRequests()) > 0 {
			c.resp.Usage = &spent
			return c.resp, nil
		}
		ans := enforce.Answer{Iteration: iteration, Given: c.text, Cut: c.cut, Cost: cost, Provider: System}
		if c.resp != nil {
			switch c.resp.FinishReason {
			case ai.FinishReasonLength:
				ans.Truncated = true
			case ai.FinishReasonBlocked:
				ans.Withheld = "blocked: " + c.resp.FinishMessage
			}
		}
		v, err := g.judge(ctx, s, ans)
		if err != nil {
			return nil, err
		}
		if v.Row.Outcome != enforce.OutcomeRetried {
			c.resp.Usage, c.resp.Request = &spent, req
			return c.resp, nil
		}
		failed := ai.NewModelTextMessage(c.text)
		if c.resp != nil {
			failed = c.resp.Message
		}
		corrective := ai.NewUserTextMessage(v.Corrective)
		next := *req
		next.Messages = append(append(make([]*ai.Message, 0, len(req.Messages)+2), req.Messages...), failed, corrective)
		req = &next
		if cb != nil {
			if err := cb(ctx, &ai.ModelResponseChunk{Role: ai.RoleUser, Content: corrective.Content}); err != nil {
				return nil, err
			}
		}
	}
}

// judge records ans on the Guard's ledger, made at the first answer.
func (g *Guard) judge(ctx context.Context, s *enforce.Schema, ans enforce.Answer) (enforce.Verdict, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ledger == nil {
		l, err := enforce.NewLedger(s, g.opts.retries)
		if err != nil {
			return enforce.Verdict{}, err
		}
		g.schema, g.ledger = s, l
	}
	if s != g.schema {
		return enforce.Verdict{}, fmt.Errorf("%w: genkit: a Guard holds one generate call to one contract; this call's differs from its first", agent.ErrInvalidOption)
	}
	v := g.ledger.Judge(ctx, ans)
	return v, v.Err
}

// spend adds a call's usage to the turn's and the Guard's; it returns
// the call's cost for its row. g.mu is held.
func (g *Guard) spend(turn *ai.GenerationUsage, resp *ai.ModelResponse) enforce.Cost {
	if resp == nil || resp.Usage == nil {
		return enforce.Cost{}
	}
	u := resp.Usage
	turn.InputTokens += u.InputTokens
	turn.OutputTokens += u.OutputTokens
	turn.TotalTokens += u.TotalTokens
	turn.CachedContentTokens += u.CachedContentTokens
	turn.ThoughtsTokens += u.ThoughtsTokens
	g.usage.InputTokens += u.InputTokens
	g.usage.OutputTokens += u.OutputTokens
	g.usage.CachedTokens += u.CachedContentTokens
	g.usage.ReasoningTokens += u.ThoughtsTokens
	return enforce.Cost{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CachedTokens: u.CachedContentTokens, ReasoningTokens: u.ThoughtsTokens}
}

// reply is one model call's outcome: a response, or an answer cut at its
// early verdict (resp nil).
type reply struct {
	resp *ai.ModelResponse
	text string // the answer: the response's text, or as far as it was cut
	cut  *enforce.Cut
}

// call makes one model call, retried under WithModelRetry.
func (g *Guard) call(ctx context.Context, next ai.ModelFunc, req *ai.ModelRequest, cb ai.ModelStreamCallback, s *enforce.Schema) (reply, error) {
	for attempt := 1; ; attempt++ {
		var answer strings.Builder
		var cut *enforce.Cut
		passed := false // a chunk was passed on: a retry would repeat it
		var watch ai.ModelStreamCallback
		if cb != nil {
			var st *enforce.Incremental
			if s != nil && len(req.Tools) == 0 {
				st = s.Stream()
			}
			watch = func(ctx context.Context, c *ai.ModelResponseChunk) error {
				for _, p := range c.Content {
					if st == nil || !p.IsText() {
						continue
					}
					n, err := st.WriteString(p.Text)
					answer.WriteString(p.Text[:n])
					var ce *enforce.CheckError
					if errors.As(err, &ce) {
						cut = &enforce.Cut{Verdict: ce, Bytes: answer.Len()}
						return errCut
					}
				}
				if c.Role == "" {
					c.Role = ai.RoleModel // so a corrective turn's chunk starts a new index, and the next answer another
				}
				passed = true
				return cb(ctx, c)
			}
		}
		resp, err := next(ctx, req, watch)
		switch {
		case cut != nil:
			return reply{text: answer.String(), cut: cut}, nil
		case err == nil && (resp == nil || resp.Message == nil):
			return reply{}, glue.Malformed(System, "the model returned no message")
		case err == nil:
			return reply{resp: resp, text: resp.Text()}, nil
		}
		err = failure(ctx, err)
		p := g.opts.retry
		if p == nil || passed || attempt >= p.MaxAttempts || ctx.Err() != nil || !retryable(p, err) {
			return reply{}, err
		}
		if err := wait(ctx, p.Backoff(attempt, err)); err != nil {
			return reply{}, err
		}
	}
}

// retryable is p's verdict on err, or the agent's default: a
// *agent.ProviderError whose Retryable says so.
func retryable(p *agent.RetryPolicy, err error) bool {
	if p.Retryable != nil {
		return p.Retryable(err)
	}
	var pe *agent.ProviderError
	return errors.As(err, &pe) && pe.Retryable()
}

// wait waits d, or until ctx is done (its cause).
func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return context.Cause(ctx)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// contract is the schema the request's answer is held to: nil for text
// (or no output asked for), the format's for [Format].
func contract(req *ai.ModelRequest) (*enforce.Schema, error) {
	if req.Output == nil {
		return nil, nil
	}
	switch req.Output.Format {
	case "", ai.OutputFormatText, ai.OutputFormatMedia:
		return nil, nil
	case Format:
	default:
		return nil, fmt.Errorf("%w (format %q)", ErrTwoJudges, req.Output.Format)
	}
	if req.Output.Schema != nil {
		if b, err := json.Marshal(req.Output.Schema); err == nil {
			if s, ok := contracts.Load("s:" + string(b)); ok {
				return s.(*enforce.Schema), nil
			}
		}
	}
	for _, m := range req.Messages {
		for _, p := range m.Content {
			if p.IsText() && p.Metadata["purpose"] == "output" {
				if s, ok := contracts.Load("i:" + p.Text); ok {
					return s.(*enforce.Schema), nil
				}
			}
		}
	}
	return nil, ErrNoContract
}
