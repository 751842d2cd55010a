package agent

import (
	"math"
	"strconv"

	"github.com/enforcer-go/enforcer/enforce"
)

// ErrBudget is matched by every stop of a budget the caller set: a run's
// ([WithBudget]: an *enforce.OutputError whose row names the cap, or a
// [*BudgetError] for a request refused) and the failed answers'
// ([WithFailedCostBudget]). It is enforce.ErrBudget.
var ErrBudget = enforce.ErrBudget

// Budget caps what one run spends over every model it calls (the whole
// turn: [WithTurnRetry]'s runs and [WithEscalation]'s models together).
// A member that is zero is no cap. Tokens are counted as [Usage] counts
// them; a request is one model call, each try under [WithModelRetry]
// included; Money is priced by [WithPrices], in the prices' unit.
type Budget struct {
	InputTokens  int
	OutputTokens int
	TotalTokens  int // input and output together
	Requests     int
	Money        float64
}

// WithBudget caps a whole run's tokens, model requests and money. A cap
// is reached once what the run spent comes to it. No request is made
// once a cap is reached, nor when the input tokens of the model's last
// call in this conversation prove that the request would pass the
// input, total or money cap (the request re-sends that call's whole
// conversation; not so with [WithLatestRetryOnly], on another model —
// also for a correction [WithEscalation]'s rules may send to the next
// one — or in a new run of the turn, where nothing is proved before the
// reply).
// A reply that passes a cap is still taken: a final answer that keeps
// the contract passes; one that fails, with retries left, is exhausted
// with the cap's reason ([enforce.ReasonTokenBudget],
// [enforce.ReasonRequestBudget], [enforce.ReasonMoneyBudget]) instead of
// corrected, and the run returns its *enforce.OutputError. A request
// refused otherwise (after tool calls, or before the first) ends the run
// with a [*BudgetError]. Both match [ErrBudget]. A Money cap needs
// [WithPrices]; a negative, NaN or infinite member makes Run return an
// error matching [ErrInvalidOption].
func WithBudget(b Budget) Option {
	return optionFunc(func(c *config) {
		if min(b.InputTokens, b.OutputTokens, b.TotalTokens, b.Requests) < 0 || !finite(b.Money) || b.Money < 0 {
			c.invalid("WithBudget(%+v): a cap is negative or not a number", b)
		}
		c.runBudget = b
	})
}

// WithFailedCostBudget stops a run once its failed answers (with
// [WithOutputRetries]) and failed tool calls cost more than b
// ([enforce.WithFailedCostBudget]; a reply whose calls failed counts
// once, on its first failed call's row): the
// answer that passes it is exhausted with reason budget, retries
// unspent, and the run returns an *enforce.OutputError; a call, a
// [*ToolCallError]. Both match [ErrBudget].
// Each member of b that is not zero is a limit: input, output, cached
// and reasoning tokens, latency, and money (priced by [WithPrices]). A
// negative member makes Run return an error matching [ErrInvalidOption].
func WithFailedCostBudget(b enforce.Cost) Option {
	return optionFunc(func(c *config) {
		if min(int64(b.InputTokens), int64(b.OutputTokens), int64(b.CachedTokens), int64(b.ReasoningTokens), b.LatencyMs) < 0 || !finite(b.Money) || b.Money < 0 {
			c.invalid("WithFailedCostBudget(%+v): a limit is negative", b)
		}
		c.budget = b
	})
}

// Price is what a model's tokens cost, per million, in a unit of the
// caller's choice (the same for every model priced). CachedInput prices
// the input tokens read from the prompt cache and Reasoning the output
// tokens spent on reasoning; either, when zero, is priced as Input or
// Output.
type Price struct {
	Input, CachedInput, Output, Reasoning float64
}

// Of is what usage u costs at p.
func (p Price) Of(u Usage) float64 {
	in, cached := max(u.InputTokens, 0), min(max(u.CachedTokens, 0), max(u.InputTokens, 0))
	out, reasoning := max(u.OutputTokens, 0), min(max(u.ReasoningTokens, 0), max(u.OutputTokens, 0))
	cachedPrice, reasoningPrice := p.CachedInput, p.Reasoning
	if cachedPrice == 0 {
		cachedPrice = p.Input
	}
	if reasoningPrice == 0 {
		reasoningPrice = p.Output
	}
	// Saturated: a Result holding +Inf could not be marshalled.
	return min((float64(in-cached)*p.Input+float64(cached)*cachedPrice+
		float64(out-reasoning)*p.Output+float64(reasoning)*reasoningPrice)/1e6, math.MaxFloat64)
}

// maxPrice is the largest price [WithPrices] takes: at it, any count of
// input and output tokens (each at most math.MaxInt64) costs less than
// the largest float64.
const maxPrice = 1e288

// addMoney is a+b, saturated at the largest float64 where it overflows.
func addMoney(a, b float64) float64 { return min(a+b, math.MaxFloat64) }

// WithPrices gives the price of each model by the name its adapter
// reports (its ModelName method, as openai.Model's; "" for a model
// that reports none). A call of a priced model puts its money on its
// row ([enforce.Cost].Money) and in [Result.Money]; a model with no
// price costs nothing there; sums saturate at the largest float64. The
// library keeps no prices of its own: they change. A negative, NaN or
// infinite price, or one past 1e288 (where a call's tokens could cost
// more than a float64 holds), makes Run return an error matching
// [ErrInvalidOption].
func WithPrices(prices map[string]Price) Option {
	return optionFunc(func(c *config) {
		for name, p := range prices {
			for _, v := range [...]float64{p.Input, p.CachedInput, p.Output, p.Reasoning} {
				if !finite(v) || v < 0 || v > maxPrice {
					c.invalid("WithPrices: %q: price %g is negative, not a number or past %g", name, v, maxPrice)
					break
				}
			}
		}
		c.prices = make(map[string]Price, len(prices))
		for name, p := range prices {
			c.prices[name] = p
		}
	})
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// ModelSpend is what one model of a run spent.
type ModelSpend struct {
	// Provider and Model name it as its adapter reports them (its
	// ProviderName and ModelName methods); empty when it does not.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// Requests counts its calls, each try under [WithModelRetry] included.
	Requests int   `json:"requests"`
	Usage    Usage `json:"usage"`
	// Money is Usage at the model's price ([WithPrices]); 0 without one.
	Money float64 `json:"money,omitempty"`
	// Judge: the model was asked by a rule ([Judge]) on the answer, the
	// input or a tool's result, not by the agent; such rows follow the
	// chain's.
	Judge bool `json:"judge,omitempty"`
	// Format: the model formatted the free answer ([WithFormatStep]); its
	// row follows the chain's, before the judges'. A chain's model that
	// formats after escalation spends on its own row.
	Format bool `json:"format,omitempty"`
}

// BudgetError is a model request [WithBudget] refused where no answer's
// row could say so: before the first request, or after tool calls. It
// matches [ErrBudget].
type BudgetError struct {
	// Reason names the cap: enforce.ReasonTokenBudget,
	// enforce.ReasonRequestBudget or enforce.ReasonMoneyBudget.
	Reason enforce.Reason
	// Cap is the [Budget] member reached ("InputTokens", "Requests", …),
	// Limit its value and Spent what the run had spent of it, with
	// what its last call proves the request would add.
	Cap          string
	Limit, Spent float64
}

func (e *BudgetError) Error() string {
	return "agent: run budget reached: " + e.Cap + " " + strconv.FormatFloat(e.Spent, 'g', -1, 64) +
		" of " + strconv.FormatFloat(e.Limit, 'g', -1, 64) + "; the model was not asked again"
}

// Is makes a BudgetError match [ErrBudget].
func (e *BudgetError) Is(target error) bool { return target == ErrBudget }

// spend is what a whole turn spent, model by model ([Result.Models]).
type spend struct {
	models   []ModelSpend // by position in the chain; Requests 0: not called
	requests int
	money    float64
	usage    Usage // of every call of the turn
}

// add counts one call of the chain's model at, which spent u.
func (s *spend) add(at int, u Usage, money float64) {
	m := &s.models[at]
	m.Requests++
	m.Usage.add(u)
	m.Money = addMoney(m.Money, money)
	s.requests++
	s.money = addMoney(s.money, money)
	s.usage.add(u)
}

// called is the models that were called, in the chain's order (a
// prefix of the chain, since a run moves on only from a model it has
// called), then the format step's. The turn's own slice: nothing else
// holds it once the turn ends.
func (s *spend) called() []ModelSpend {
	k := 0
	for k < len(s.models) && s.models[k].Requests > 0 {
		k++
	}
	out := s.models[:k:k]
	for _, m := range s.models[k:] {
		if m.Requests > 0 { // the format step's row ([WithFormatStep])
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// price is what u costs on the chain's model at, 0 with no price.
func (st *runState) price(u Usage) float64 {
	if p := st.model().price; p != nil {
		return p.Of(u)
	}
	return 0
}

// overBudget is the cap a next request would reach or pass, nil when
// none: see [WithBudget]. proven is what the model's last call in this
// conversation proves the request will send (its input tokens), 0 when
// nothing is proved. afterRow: asked of the correction of a retried row,
// which may go to another model ([runState.mayMoveOn]).
func (st *runState) overBudget(afterRow bool) *BudgetError {
	b := st.a.cfg.runBudget
	if b == (Budget{}) {
		return nil
	}
	s := st.chain.spend
	proven := 0
	if !st.a.cfg.latestOnly && st.lastInputAt == st.spendAt() && !(afterRow && st.mayMoveOn()) {
		proven = st.lastInput
	}
	over := func(reason enforce.Reason, name string, spent, next, limit float64) *BudgetError {
		if limit > 0 && (spent >= limit || spent+next > limit) {
			return &BudgetError{Reason: reason, Cap: name, Limit: limit, Spent: addMoney(spent, next)}
		}
		return nil
	}
	u := s.usage
	in := float64(proven)
	for _, e := range [...]*BudgetError{
		over(enforce.ReasonRequestBudget, "Requests", float64(s.requests), 1, float64(b.Requests)),
		over(enforce.ReasonTokenBudget, "InputTokens", float64(u.InputTokens), in, float64(b.InputTokens)),
		over(enforce.ReasonTokenBudget, "OutputTokens", float64(u.OutputTokens), 0, float64(b.OutputTokens)),
		over(enforce.ReasonTokenBudget, "TotalTokens", float64(addTokens(u.InputTokens, u.OutputTokens)), in, float64(b.TotalTokens)),
		over(enforce.ReasonMoneyBudget, "Money", s.money, st.inputPrice(proven), b.Money),
	} {
		if e != nil {
			return e
		}
	}
	return nil
}

// inputPrice is the least n input tokens cost on the current model: all
// at the cheaper of its input prices, cached or not.
func (st *runState) inputPrice(n int) float64 {
	p := st.model().price
	if n == 0 || p == nil {
		return 0
	}
	cheapest := p.Input
	if p.CachedInput != 0 {
		cheapest = min(cheapest, p.CachedInput)
	}
	return float64(n) * cheapest / 1e6
}

// checkBudget validates what [WithBudget] needs of the other options.
func (c *config) checkBudget() {
	if c.runBudget.Money > 0 && c.prices == nil {
		c.invalid("WithBudget: a Money cap needs WithPrices")
	}
}
