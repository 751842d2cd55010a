package otel

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/fnv"
	"github.com/enforcer-go/enforcer/middleware"
	gotel "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the spans.
const ScopeName = "github.com/enforcer-go/enforcer/otel"

// Option configures [Observer].
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	tp       trace.TracerProvider
	content  bool
	agent    string
	provider string
	model    string
}

// WithTracerProvider sets where spans go (default: the global provider,
// otel.GetTracerProvider, as it is when Observer is called).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return optionFunc(func(c *config) { c.tp = tp })
}

// WithContent puts the text itself on spans: the input and the answer on
// the run span, the messages sent and the reply on chat spans, tool
// arguments and results, validators' messages on attempt events and
// errors' own text. Off by default: spans then carry lengths and hashes.
//
// Names and IDs are not text and are always on spans: the agent's, the
// model's, the tools' and middleware steps' names, tool call IDs, the
// turn ID, and the JSON Pointer of where an answer failed. Two of them
// are the model's words: a pointer at a member the schema does not
// allow names that member, and a call of a tool the agent lacks names
// that tool, as the model wrote them.
func WithContent() Option {
	return optionFunc(func(c *config) { c.content = true })
}

// WithAgentName names the agent (gen_ai.agent.name; the run span is then
// "invoke_agent <name>").
func WithAgentName(name string) Option {
	return optionFunc(func(c *config) { c.agent = name })
}

// WithModel names the provider (gen_ai.provider.name, e.g. "openai") and
// the model the agent calls (gen_ai.request.model; chat spans are then
// "chat <model>"). [WithModelOf] asks the model instead.
func WithModel(provider, model string) Option {
	return optionFunc(func(c *config) { c.provider, c.model = provider, model })
}

// WithModelOf names the provider and the model as m, the model the agent
// calls, tells them by its ProviderName and ModelName methods:
// openai.Model, anthropic.Model and gemini.Model have both (gemini.Model
// names "gcp.gemini", or "gcp.vertex_ai" for a Vertex AI client, as the
// GenAI conventions do). A name m does not tell is
// left as it was; of WithModelOf and [WithModel], the later one given
// wins.
func WithModelOf(m agent.Model) Option {
	return optionFunc(func(c *config) {
		if p, ok := m.(interface{ ProviderName() string }); ok && p.ProviderName() != "" {
			c.provider = p.ProviderName()
		}
		if n, ok := m.(interface{ ModelName() string }); ok && n.ModelName() != "" {
			c.model = n.ModelName()
		}
	})
}

// Observer returns an [agent.Observer] that records each run as spans;
// give it to the agent with [agent.WithObserver].
func Observer(opts ...Option) agent.Observer {
	c := config{}
	for _, o := range opts {
		if o != nil {
			o.apply(&c)
		}
	}
	if c.tp == nil {
		c.tp = gotel.GetTracerProvider()
	}
	t := &tracer{cfg: c, tr: c.tp.Tracer(ScopeName)}
	return agent.Observer{
		RunStart: t.runStart, RunEnd: t.runEnd,
		ModelStart: t.modelStart, ModelEnd: t.modelEnd,
		ToolStart: t.toolStart, ToolEnd: t.toolEnd,
		Attempt: t.attempt, Retry: t.retry, Call: t.call,
	}
}

type tracer struct {
	cfg config
	tr  trace.Tracer
}

// spanKey keys, in a context a Start func returned, the span it started.
type spanKey int

const (
	runSpan spanKey = iota
	chatSpan
	toolSpan
)

// start starts a span and keeps it in the context under key.
func (t *tracer) start(ctx context.Context, key spanKey, name string, opts ...trace.SpanStartOption) context.Context {
	ctx, span := t.tr.Start(ctx, name, opts...)
	return context.WithValue(ctx, key, span)
}

// own returns the span of kind key that ctx carries when it is ctx's
// current span, or nil. The agent gives an End func the context its Start
// func gave, or its own when Start panicked (a span processor's bug,
// say): then the current span is the caller's, or an outer run's, and is
// none of this func's business.
func own(ctx context.Context, key spanKey) trace.Span {
	span, _ := ctx.Value(key).(trace.Span)
	if span == nil || !span.SpanContext().Equal(trace.SpanContextFromContext(ctx)) {
		return nil
	}
	return span
}

// text describes s on a span: its length and hash, and with WithContent
// the text itself under key.
func (t *tracer) text(prefix, key, s string) []attribute.KeyValue {
	kv := []attribute.KeyValue{
		attribute.Int(prefix+".length", len(s)),
		attribute.String(prefix+".hash", fnv.Hex32a(s)),
	}
	if t.cfg.content {
		kv = append(kv, attribute.String(key, s))
	}
	return kv
}

func (t *tracer) runStart(ctx context.Context, turn, input string) context.Context {
	name := "invoke_agent"
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.String("enforcer.turn.id", turn),
	}
	if t.cfg.agent != "" {
		name += " " + t.cfg.agent
		attrs = append(attrs, attribute.String("gen_ai.agent.name", t.cfg.agent))
	}
	if t.cfg.provider != "" {
		attrs = append(attrs, attribute.String("gen_ai.provider.name", t.cfg.provider))
	}
	if t.cfg.model != "" {
		attrs = append(attrs, attribute.String("gen_ai.request.model", t.cfg.model))
	}
	attrs = append(attrs, t.text("enforcer.input", "enforcer.input", input)...)
	return t.start(ctx, runSpan, name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
}

func (t *tracer) runEnd(ctx context.Context, res *agent.Result, err error) {
	span := own(ctx, runSpan)
	if span == nil {
		return
	}
	if res != nil {
		span.SetAttributes(usage(res.Usage.InputTokens, res.Usage.OutputTokens, res.Usage.CachedTokens, res.Usage.ReasoningTokens)...)
		span.SetAttributes(
			attribute.Int("enforcer.iterations", res.Iterations),
			attribute.Int("enforcer.turn.attempts", res.TurnAttempts),
			attribute.Int("enforcer.attempts", len(res.Attempts)),
		)
		t.rules(span, "input", 0, res.InputRules)
		if len(res.Attempts) > 0 {
			last := res.Attempts[len(res.Attempts)-1]
			span.SetAttributes(attribute.String("enforcer.outcome", string(last.Outcome)))
		}
		if fc := res.FailedCost; fc != (enforce.Cost{}) {
			span.SetAttributes(
				attribute.Int("enforcer.failed.input_tokens", fc.InputTokens),
				attribute.Int("enforcer.failed.output_tokens", fc.OutputTokens),
				attribute.Int64("enforcer.failed.latency_ms", fc.LatencyMs),
			)
		}
		if err == nil {
			span.SetAttributes(t.text("enforcer.output", "enforcer.output", res.Output)...)
		}
	}
	t.fail(span, err)
	span.End()
}

func (t *tracer) modelStart(ctx context.Context, req agent.Request) context.Context {
	name := "chat"
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.Int("enforcer.request.messages", len(req.Messages)),
		attribute.Int("enforcer.request.tools", len(req.Tools)),
	}
	if t.cfg.model != "" {
		name += " " + t.cfg.model
		attrs = append(attrs, attribute.String("gen_ai.request.model", t.cfg.model))
	}
	if t.cfg.provider != "" {
		attrs = append(attrs, attribute.String("gen_ai.provider.name", t.cfg.provider))
	}
	if req.OutputSchema != nil || req.RequireToolCall {
		json := attribute.String("gen_ai.output.type", "json")
		attrs = append(attrs, json)
		// The run asks for it too; the conventions want it on both.
		if run := own(ctx, runSpan); run != nil {
			run.SetAttributes(json)
		}
	}
	if t.cfg.content {
		attrs = append(attrs, attribute.String("gen_ai.input.messages", inputMessages(req.Messages)))
	}
	return t.start(ctx, chatSpan, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

func (t *tracer) modelEnd(ctx context.Context, call agent.ModelCall) {
	span := own(ctx, chatSpan)
	if span == nil {
		return
	}
	r := call.Response
	attrs := []attribute.KeyValue{
		attribute.Bool("enforcer.streamed", call.Streamed),
		attribute.Int64("enforcer.latency_ms", call.Latency.Milliseconds()),
	}
	attrs = append(attrs, usage(r.Usage.InputTokens, r.Usage.OutputTokens, r.Usage.CachedTokens, r.Usage.ReasoningTokens)...)
	if call.Err == nil {
		// The provider's own word, as instrumentations of its client
		// report it; else the adapter's, in the conventions' words.
		reason := r.StopRaw
		if reason == "" && r.Stop != "" {
			reason = finishReason(r.Stop)
		}
		if reason != "" {
			attrs = append(attrs, attribute.StringSlice("gen_ai.response.finish_reasons", []string{reason}))
		}
		if r.Stop != "" {
			attrs = append(attrs, attribute.String("enforcer.stop", string(r.Stop)))
		}
		attrs = append(attrs, attribute.Int("enforcer.response.tool_calls", len(r.Message.ToolCalls)))
		attrs = append(attrs, t.text("enforcer.response", "enforcer.response", r.Message.Content)...)
		if t.cfg.content {
			attrs = append(attrs, attribute.String("gen_ai.output.messages", outputMessages(r)))
		}
	}
	if c := call.Cut; c != nil {
		attrs = append(attrs, attribute.Int("enforcer.cut.bytes", c.Bytes))
		if c.OutputTokens > 0 {
			attrs = append(attrs, attribute.Int("enforcer.cut.output_tokens", c.OutputTokens))
		}
	}
	span.SetAttributes(attrs...)
	t.fail(span, call.Err)
	span.End()
}

func (t *tracer) toolStart(ctx context.Context, call agent.ToolCall) context.Context {
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", call.Name),
		attribute.String("gen_ai.tool.call.id", call.ID),
		attribute.String("gen_ai.tool.type", "function"),
	}
	attrs = append(attrs, t.text("enforcer.tool.arguments", "gen_ai.tool.call.arguments", string(call.Arguments))...)
	return t.start(ctx, toolSpan, "execute_tool "+call.Name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
}

func (t *tracer) toolEnd(ctx context.Context, _ agent.ToolCall, result string, err error) {
	span := own(ctx, toolSpan)
	if span == nil {
		return
	}
	if err == nil {
		span.SetAttributes(t.text("enforcer.tool.result", "gen_ai.tool.call.result", result)...)
	}
	t.fail(span, err)
	span.End()
}

// call sets a tool call's row (agent.Result.Calls) on its tool span: the
// outcome, and for a call that failed or was mended the stage, pointer,
// error, corrective message's hash, reason and repairs.
func (t *tracer) call(ctx context.Context, row enforce.Attempt) {
	span := own(ctx, toolSpan)
	if span == nil {
		return
	}
	attrs := []attribute.KeyValue{
		attribute.Int("enforcer.tool_call.number", row.Attempt),
		attribute.String("enforcer.tool_call.outcome", string(row.Outcome)),
	}
	for _, f := range [...]struct{ k, v string }{
		{"stage", string(row.Stage)}, {"path", row.Path}, {"corrective_message_hash", row.CorrectiveMessageHash},
		{"reason", string(row.Reason)}, {"provider", row.Provider}, {"model", row.Model},
	} {
		if f.v != "" {
			attrs = append(attrs, attribute.String("enforcer.tool_call."+f.k, f.v))
		}
	}
	if row.Error != "" {
		attrs = append(attrs, t.text("enforcer.tool_call.error", "enforcer.tool_call.error", row.Error)...)
	}
	if row.Repaired != 0 {
		attrs = append(attrs, attribute.StringSlice("enforcer.tool_call.repaired", strings.Split(row.Repaired.String(), ",")))
	}
	span.SetAttributes(attrs...)
}

// attempt adds a row as an "enforcer.attempt" event on the run span.
func (t *tracer) attempt(ctx context.Context, row enforce.Attempt) {
	span := own(ctx, runSpan)
	if span == nil {
		return
	}
	attrs := []attribute.KeyValue{
		attribute.Int("enforcer.attempt.number", row.Attempt),
		attribute.Int("enforcer.attempt.iteration", row.Iteration),
		attribute.String("enforcer.attempt.outcome", string(row.Outcome)),
	}
	for _, f := range [...]struct{ k, v string }{
		{"stage", string(row.Stage)}, {"path", row.Path}, {"corrective_message_hash", row.CorrectiveMessageHash},
		{"broken_by", row.BrokenBy}, {"withheld", row.Withheld}, {"reason", string(row.Reason)},
		{"kind", string(row.Kind)}, {"member", row.Member}, // absent for one JSON value, and without a union
		{"provider", row.Provider}, {"model", row.Model}, // the model that wrote it (agent.WithEscalation)
	} {
		if f.v != "" {
			attrs = append(attrs, attribute.String("enforcer.attempt."+f.k, f.v))
		}
	}
	if row.Error != "" {
		attrs = append(attrs, t.text("enforcer.attempt.error", "enforcer.attempt.error", row.Error)...)
	}
	if row.Truncated {
		attrs = append(attrs, attribute.Bool("enforcer.attempt.truncated", true))
	}
	attrs = append(attrs, usage(row.InputTokens, row.OutputTokens, row.CachedTokens, row.ReasoningTokens)...)
	if row.LatencyMs > 0 {
		attrs = append(attrs, attribute.Int64("enforcer.attempt.latency_ms", row.LatencyMs))
	}
	if row.Cut != nil {
		attrs = append(attrs, attribute.Int("enforcer.attempt.cut.bytes", row.Cut.Bytes))
	}
	if row.Repaired != 0 {
		attrs = append(attrs, attribute.StringSlice("enforcer.attempt.repaired", strings.Split(row.Repaired.String(), ",")))
	}
	span.AddEvent("enforcer.attempt", trace.WithAttributes(attrs...))
	if row.Rules != nil {
		t.rules(span, "answer", row.Attempt, *row.Rules)
	}
}

// rules adds each rule's verdict as an "enforcer.rule" event on the run
// span: on an answer's row (attempt) or on the input (attempt 0). The
// rule's name and pointer are names; its reason is text.
func (t *tracer) rules(span trace.Span, on string, attempt int, rs []enforce.Ruling) {
	for _, r := range rs {
		attrs := []attribute.KeyValue{
			attribute.String("enforcer.rule.name", r.Rule),
			attribute.String("enforcer.rule.verdict", string(r.Verdict)),
			attribute.String("enforcer.rule.on", on),
		}
		if attempt > 0 {
			attrs = append(attrs, attribute.Int("enforcer.rule.attempt", attempt))
		}
		for _, f := range [...]struct{ k, v string }{{"path", r.Path}, {"provider", r.Provider}, {"model", r.Model}} {
			if f.v != "" {
				attrs = append(attrs, attribute.String("enforcer.rule."+f.k, f.v))
			}
		}
		if r.Reason != "" {
			attrs = append(attrs, t.text("enforcer.rule.reason", "enforcer.rule.reason", r.Reason)...)
		}
		// What a judge spent: its own keys, not gen_ai.usage.*, which
		// the run span's totals already count.
		for _, f := range [...]struct {
			k string
			v int
		}{{"input_tokens", r.InputTokens}, {"output_tokens", r.OutputTokens}, {"cached_tokens", r.CachedTokens}, {"reasoning_tokens", r.ReasoningTokens}} {
			if f.v > 0 {
				attrs = append(attrs, attribute.Int("enforcer.rule."+f.k, f.v))
			}
		}
		if r.Money > 0 {
			attrs = append(attrs, attribute.Float64("enforcer.rule.money", r.Money))
		}
		span.AddEvent("enforcer.rule", trace.WithAttributes(attrs...))
	}
}

// retry adds a scheduled retry as an "enforcer.retry" event on the run span.
func (t *tracer) retry(ctx context.Context, r agent.Retry) {
	span := own(ctx, runSpan)
	if span == nil {
		return
	}
	attrs := []attribute.KeyValue{
		attribute.String("enforcer.retry.kind", string(r.Kind)),
		attribute.Int("enforcer.retry.attempt", r.Attempt),
		attribute.Int("enforcer.retry.max_attempts", r.MaxAttempts),
		attribute.Int64("enforcer.retry.delay_ms", r.Delay.Milliseconds()),
		attribute.String("enforcer.retry.reason", t.describe(r.Err)),
		attribute.String("error.type", errorType(r.Err)),
	}
	var pe *agent.ProviderError
	if errors.As(r.Err, &pe) {
		if pe.HTTPStatus >= 100 && pe.HTTPStatus <= 599 {
			attrs = append(attrs, attribute.Int("http.response.status_code", pe.HTTPStatus))
		}
		if pe.RetryAfter > 0 {
			attrs = append(attrs, attribute.Int64("enforcer.retry.retry_after_ms", pe.RetryAfter.Milliseconds()))
		}
	}
	span.AddEvent("enforcer.retry", trace.WithAttributes(attrs...))
}

// usage is the token counts the provider reported, cached and reasoning
// tokens among input and output as the conventions count them; a count of
// 0 is taken for one it did not report, and left off.
func usage(input, output, cached, reasoning int) []attribute.KeyValue {
	var kv []attribute.KeyValue
	for _, c := range [...]struct {
		key string
		n   int
	}{
		{"gen_ai.usage.input_tokens", input}, {"gen_ai.usage.output_tokens", output},
		{"gen_ai.usage.cache_read.input_tokens", cached}, {"gen_ai.usage.reasoning.output_tokens", reasoning},
	} {
		if c.n > 0 {
			kv = append(kv, attribute.Int(c.key, c.n))
		}
	}
	return kv
}

// fail records err on span, if any, and sets its status.
func (t *tracer) fail(span trace.Span, err error) {
	if err == nil {
		return
	}
	msg := t.describe(err)
	typ := errorType(err)
	span.SetAttributes(attribute.String("error.type", typ))
	span.AddEvent("exception", trace.WithAttributes(
		attribute.String("exception.type", fmt.Sprintf("%T", err)),
		attribute.String("exception.message", msg),
	))
	span.SetStatus(codes.Error, msg)
}

// describe is err in words fit for a span: its own text with WithContent;
// otherwise the library's words for errors that may carry a provider's,
// a model's or a middleware's text.
func (t *tracer) describe(err error) string {
	if err == nil {
		return ""
	}
	if t.cfg.content {
		return err.Error()
	}
	var pe *agent.ProviderError
	var de *middleware.DeniedError
	var ve *enforce.ValidatorError
	var oe *enforce.OutputError
	var re *agent.RefusalError
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		if errors.Is(err, context.DeadlineExceeded) {
			return context.DeadlineExceeded.Error()
		}
		return context.Canceled.Error()
	case errors.As(err, &pe):
		msg := "model call failed: " + string(pe.Kind)
		if pe.HTTPStatus >= 100 && pe.HTTPStatus <= 599 {
			msg += fmt.Sprintf(" (HTTP %d)", pe.HTTPStatus)
		}
		return msg
	case errors.As(err, &de):
		return fmt.Sprintf("middleware: %s step %q denied", de.Phase, de.Name)
	case errors.As(err, &ve):
		return fmt.Sprintf("validator %q failed", ve.Name)
	case errors.As(err, &oe):
		// The library's words (counts, brokenBy), without the issues,
		// whose text a validator wrote.
		msg := oe.Error()
		if oe.Err != nil {
			msg = strings.TrimSuffix(msg, ": "+oe.Err.Error())
		}
		return msg
	case errors.As(err, &re):
		return re.Error() // the kind in the library's words
	}
	for _, known := range []error{agent.ErrMaxIterations, agent.ErrEmptyAnswer, agent.ErrInvalidOption} {
		if errors.Is(err, known) {
			return known.Error()
		}
	}
	if errors.Is(err, agent.ErrModel) {
		return agent.ErrModel.Error()
	}
	return "error " + fmt.Sprintf("%T", err)
}

// errorType is the error.type attribute: a low-cardinality name of what
// failed.
func errorType(err error) string {
	var pe *agent.ProviderError
	var de *middleware.DeniedError
	var ve *enforce.ValidatorError
	var oe *enforce.OutputError
	var re *agent.RefusalError
	switch {
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &pe):
		if pe.Kind != "" {
			return string(pe.Kind)
		}
		return "provider"
	case errors.As(err, &de):
		return "denied"
	case errors.As(err, &ve):
		return "validator"
	case errors.As(err, &oe):
		return "output_contract"
	case errors.As(err, &re):
		return strings.ToLower(string(re.Stop))
	case errors.Is(err, agent.ErrMaxIterations):
		return "max_iterations"
	case errors.Is(err, agent.ErrInvalidOption):
		return "invalid_option"
	}
	return fmt.Sprintf("%T", err)
}
