package otel_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/fnv"
	"github.com/enforcer-go/enforcer/middleware"
	"github.com/enforcer-go/enforcer/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

type Weather struct {
	City  string `json:"city"`
	TempC int    `json:"tempC"`
}

const (
	prompt = "What is the weather in Zanzibar today?"
	valid  = `{"city":"Zanzibar","tempC":31}`
	// broken fails at json-parse; wrongType at schema-validate.
	broken    = `Sure! The weather in Zanzibar is hot.`
	wrongType = `{"city":"Zanzibar","tempC":"hot"}`
)

// fixed is a clock that never moves, so every latency is 0.
func fixed() time.Time { return time.Unix(0, 0) }

// traced returns a tracer provider that exports to an in-memory exporter,
// and the exporter.
func traced(t *testing.T) (*sdktrace.TracerProvider, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp, exp
}

func newAgent(t *testing.T, tp trace.TracerProvider, m agent.Model, opts ...agent.Option) *agent.Agent {
	t.Helper()
	s, err := enforce.SchemaFor[Weather]()
	if err != nil {
		t.Fatal(err)
	}
	base := []agent.Option{
		agent.WithOutputSchema(s), agent.WithClock(fixed),
		agent.WithObserver(otel.Observer(otel.WithTracerProvider(tp), otel.WithModel("test", "scripted-1"))),
	}
	return agent.New(m, append(base, opts...)...)
}

// tree renders the exported spans as the exporter saw them: each span
// under its parent, its status when not unset, and its events with their
// attributes (exceptions' messages included).
func tree(spans tracetest.SpanStubs) string {
	var b strings.Builder
	var walk func(parent trace.SpanID, depth int)
	walk = func(parent trace.SpanID, depth int) {
		kids := slices.DeleteFunc(slices.Clone(spans), func(s tracetest.SpanStub) bool { return s.Parent.SpanID() != parent })
		slices.SortStableFunc(kids, func(a, b tracetest.SpanStub) int { return a.StartTime.Compare(b.StartTime) })
		for _, s := range kids {
			indent := strings.Repeat("  ", depth)
			fmt.Fprintf(&b, "%s%s", indent, s.Name)
			if s.Status.Code != codes.Unset {
				fmt.Fprintf(&b, " [%s: %s]", s.Status.Code, s.Status.Description)
			}
			b.WriteString("\n")
			for _, e := range s.Events {
				fmt.Fprintf(&b, "%s  · %s", indent, e.Name)
				for _, kv := range e.Attributes {
					v := kv.Value.Emit()
					if kv.Value.Type() == attribute.STRING {
						v = fmt.Sprintf("%q", v)
					}
					fmt.Fprintf(&b, " %s=%s", strings.TrimPrefix(string(kv.Key), "enforcer."), v)
				}
				b.WriteString("\n")
			}
			walk(s.SpanContext.SpanID(), depth+1)
		}
	}
	walk(trace.SpanID{}, 0)
	return b.String()
}

func attrs(s tracetest.SpanStub) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

// span returns the one exported span named name.
func span(t *testing.T, spans tracetest.SpanStubs, name string) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d spans named %q, want 1; the trace:\n%s", len(found), name, tree(spans))
	}
	return found[0]
}

func wantAttrs(t *testing.T, s tracetest.SpanStub, want map[string]string) {
	t.Helper()
	got := attrs(s)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("span %q: %s = %q, want %q", s.Name, k, got[k], v)
		}
	}
}

func wantTree(t *testing.T, exp *tracetest.InMemoryExporter, want string) tracetest.SpanStubs {
	t.Helper()
	spans := exp.GetSpans()
	if got := tree(spans); got != want {
		t.Errorf("the trace:\n%s\nwant:\n%s", got, want)
	}
	return spans
}

func TestPassingRunIsOneAgentSpanOverItsCalls(t *testing.T) {
	tp, exp := traced(t)
	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("call-1", "lookup", `{"city":"Zanzibar"}`)).WithDetailedUsage(20, 5, 16, 0),
		agenttest.Reply(valid).WithDetailedUsage(30, 9, 24, 2).WithStop(agent.StopComplete))
	lookup := agent.Tool{Name: "lookup", Run: func(context.Context, json.RawMessage) (string, error) { return "31C", nil }}
	a := newAgent(t, tp, m, agent.WithOutputRetries(2), agent.WithTools(lookup))

	ctx := agent.ContextWithTurnID(t.Context(), "turn-1")
	if _, _, err := agent.RunTyped[Weather](ctx, a, prompt); err != nil {
		t.Fatal(err)
	}

	spans := wantTree(t, exp, `invoke_agent
  · enforcer.attempt attempt.number=1 attempt.iteration=2 attempt.outcome="passed" gen_ai.usage.input_tokens=30 gen_ai.usage.output_tokens=9 gen_ai.usage.cache_read.input_tokens=24 gen_ai.usage.reasoning.output_tokens=2
  chat scripted-1
  execute_tool lookup
  chat scripted-1
`)
	run := span(t, spans, "invoke_agent")
	if run.SpanKind != trace.SpanKindInternal || run.InstrumentationScope.Name != otel.ScopeName {
		t.Errorf("run span kind %v scope %q", run.SpanKind, run.InstrumentationScope.Name)
	}
	wantAttrs(t, run, map[string]string{
		"gen_ai.operation.name": "invoke_agent", "enforcer.turn.id": "turn-1", "gen_ai.output.type": "json",
		"gen_ai.usage.input_tokens": "50", "gen_ai.usage.output_tokens": "14",
		"gen_ai.usage.cache_read.input_tokens": "40", "gen_ai.usage.reasoning.output_tokens": "2",
		"enforcer.iterations": "2", "enforcer.attempts": "1", "enforcer.outcome": "passed",
		"enforcer.input.length": fmt.Sprint(len(prompt)), "enforcer.output.length": fmt.Sprint(len(valid)),
	})
	tool := span(t, spans, "execute_tool lookup")
	wantAttrs(t, tool, map[string]string{
		"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup", "gen_ai.tool.call.id": "call-1",
		"enforcer.tool.result.length": "3",
	})
	var chats []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == "chat scripted-1" {
			chats = append(chats, s)
		}
	}
	slices.SortFunc(chats, func(a, b tracetest.SpanStub) int { return a.StartTime.Compare(b.StartTime) })
	if chats[0].SpanKind != trace.SpanKindClient {
		t.Errorf("chat span kind %v, want client", chats[0].SpanKind)
	}
	wantAttrs(t, chats[1], map[string]string{
		"gen_ai.operation.name": "chat", "gen_ai.request.model": "scripted-1", "gen_ai.provider.name": "test",
		"gen_ai.usage.input_tokens": "30", "gen_ai.usage.output_tokens": "9",
		"gen_ai.usage.cache_read.input_tokens": "24", "gen_ai.usage.reasoning.output_tokens": "2",
		"gen_ai.response.finish_reasons": `["complete"]`, "enforcer.streamed": "false",
		"enforcer.response.length": fmt.Sprint(len(valid)),
	})
	for _, s := range spans {
		if s.Status.Code == codes.Error {
			t.Errorf("span %q has status error on a passing run", s.Name)
		}
	}
}

func TestTwoCorrectiveRetriesAreTwoRetriedRowsOnTheRunSpan(t *testing.T) {
	tp, exp := traced(t)
	m := agenttest.NewModel(t, agenttest.Reply(broken), agenttest.Reply(wrongType), agenttest.Reply(valid))
	a := newAgent(t, tp, m, agent.WithOutputRetries(2))

	_, res, err := agent.RunTyped[Weather](t.Context(), a, prompt)
	if err != nil {
		t.Fatal(err)
	}
	h1, h2 := res.Attempts[0].CorrectiveMessageHash, res.Attempts[1].CorrectiveMessageHash
	spans := wantTree(t, exp, `invoke_agent
  · enforcer.attempt attempt.number=1 attempt.iteration=1 attempt.outcome="retried" attempt.stage="json-parse" attempt.corrective_message_hash=`+strconv.Quote(h1)+` attempt.error.length=`+fmt.Sprint(len(res.Attempts[0].Error))+` attempt.error.hash=`+hash(res.Attempts[0].Error)+`
  · enforcer.attempt attempt.number=2 attempt.iteration=2 attempt.outcome="retried" attempt.stage="schema-validate" attempt.path="/tempC" attempt.corrective_message_hash=`+strconv.Quote(h2)+` attempt.error.length=`+fmt.Sprint(len(res.Attempts[1].Error))+` attempt.error.hash=`+hash(res.Attempts[1].Error)+`
  · enforcer.attempt attempt.number=3 attempt.iteration=3 attempt.outcome="passed"
  chat scripted-1
  chat scripted-1
  chat scripted-1
`)
	wantAttrs(t, span(t, spans, "invoke_agent"), map[string]string{"enforcer.attempts": "3", "enforcer.iterations": "3"})
}

func hash(s string) string { return fmt.Sprintf("%q", fnv.Hex32a(s)) }

// The default policy waits as long as Retry-After says; the test's clock
// is synctest's, so the 2 s pass at once and the spans' times show them.
func TestModelRetryWithRetryAfterIsAnEventAndAFailedChatSpan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tp, exp := traced(t)
		limited := &agent.ProviderError{System: "test", Kind: events.KindRateLimit, HTTPStatus: 429, RetryAfter: 2 * time.Second,
			Message: "secret provider words about " + prompt}
		m := agenttest.NewModel(t, agenttest.Fail(limited), agenttest.Reply(valid))
		a := newAgent(t, tp, m, agent.WithOutputRetries(1), agent.WithModelRetry(agent.RetryPolicy{}))

		if _, _, err := agent.RunTyped[Weather](context.Background(), a, prompt); err != nil {
			t.Fatal(err)
		}
		spans := wantTree(t, exp, `invoke_agent
  · enforcer.retry retry.kind="model" retry.attempt=1 retry.max_attempts=3 retry.delay_ms=2000 retry.reason="model call failed: rate_limit (HTTP 429)" error.type="rate_limit" http.response.status_code=429 retry.retry_after_ms=2000
  · enforcer.attempt attempt.number=1 attempt.iteration=1 attempt.outcome="passed"
  chat scripted-1 [Error: model call failed: rate_limit (HTTP 429)]
    · exception exception.type="*agent.ProviderError" exception.message="model call failed: rate_limit (HTTP 429)"
  chat scripted-1
`)
		// The wait is on the trace: between the two chat spans, and in the
		// run span's length.
		var chats []tracetest.SpanStub
		for _, s := range spans {
			if s.Name == "chat scripted-1" {
				chats = append(chats, s)
			}
		}
		slices.SortFunc(chats, func(a, b tracetest.SpanStub) int { return a.StartTime.Compare(b.StartTime) })
		run := span(t, spans, "invoke_agent")
		if gap, took := chats[1].StartTime.Sub(chats[0].EndTime), run.EndTime.Sub(run.StartTime); gap != 2*time.Second || took != 2*time.Second {
			t.Errorf("the second call began %v after the first ended, the run took %v; want 2s and 2s", gap, took)
		}
	})
}

func TestBrokenByRunNamesTheMiddleware(t *testing.T) {
	tp, exp := traced(t)
	m := agenttest.NewModel(t, agenttest.Reply(valid))
	breaker := middleware.Middleware{Name: "signature", Output: func(_ context.Context, s string) (string, error) {
		return s + "\n-- sent by the weather bot", nil
	}}
	a := newAgent(t, tp, m, agent.WithOutputRetries(2), agent.WithMiddleware(breaker))

	_, res, err := agent.RunTyped[Weather](t.Context(), a, prompt)
	if !errors.Is(err, enforce.ErrBrokenBy) {
		t.Fatalf("err = %v, want ErrBrokenBy", err)
	}
	row := res.Attempts[0]
	spans := wantTree(t, exp, `invoke_agent [Error: enforce: final answer breaks the output contract (broken by "signature")]
  · enforcer.attempt attempt.number=1 attempt.iteration=1 attempt.outcome="exhausted" attempt.stage="json-parse" attempt.broken_by="signature" attempt.error.length=`+fmt.Sprint(len(row.Error))+` attempt.error.hash=`+hash(row.Error)+`
  · exception exception.type="*enforce.OutputError" exception.message="enforce: final answer breaks the output contract (broken by \"signature\")"
  chat scripted-1
`)
	wantAttrs(t, span(t, spans, "invoke_agent"), map[string]string{"error.type": "output_contract", "enforcer.outcome": "exhausted"})
}

func TestDenialSetsTheRunStatusWithoutTheReason(t *testing.T) {
	tp, exp := traced(t)
	m := agenttest.NewModel(t)
	guard := middleware.Middleware{Name: "pii", Input: func(_ context.Context, s string) (string, error) {
		return "", middleware.Deny("the input names a person: " + s)
	}}
	a := newAgent(t, tp, m, agent.WithMiddleware(guard))

	_, _, err := agent.RunTyped[Weather](t.Context(), a, prompt)
	if !errors.Is(err, middleware.ErrDenied) {
		t.Fatalf("err = %v, want a denial", err)
	}
	spans := wantTree(t, exp, `invoke_agent [Error: middleware: input step "pii" denied]
  · exception exception.type="*middleware.DeniedError" exception.message="middleware: input step \"pii\" denied"
`)
	wantAttrs(t, span(t, spans, "invoke_agent"), map[string]string{"error.type": "denied"})
}

func TestCancelledRunEndsItsSpansCancelled(t *testing.T) {
	tp, exp := traced(t)
	ctx, cancel := context.WithCancel(t.Context())
	slow := agent.Tool{Name: "slow", Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
		cancel()
		<-ctx.Done()
		return "", context.Cause(ctx)
	}}
	m := agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("call-1", "slow", `{}`)))
	// The tool ends on its own goroutine, perhaps after the run: toolDone
	// closes once its span has ended.
	obs := otel.Observer(otel.WithTracerProvider(tp), otel.WithModel("test", "scripted-1"))
	toolDone, toolEnd := make(chan struct{}), obs.ToolEnd
	obs.ToolEnd = func(ctx context.Context, c agent.ToolCall, result string, err error) {
		toolEnd(ctx, c, result, err)
		close(toolDone)
	}
	s, _ := enforce.SchemaFor[Weather]()
	a := agent.New(m, agent.WithOutputSchema(s), agent.WithTools(slow), agent.WithObserver(obs))

	_, _, err := agent.RunTyped[Weather](ctx, a, prompt)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	<-toolDone
	spans := wantTree(t, exp, `invoke_agent [Error: context canceled]
  · exception exception.type="*errors.errorString" exception.message="context canceled"
  chat scripted-1
  execute_tool slow [Error: context canceled]
    · exception exception.type="*errors.errorString" exception.message="context canceled"
`)
	wantAttrs(t, span(t, spans, "invoke_agent"), map[string]string{"error.type": "cancelled"})
}

// leakCase is a run that puts words someone wrote where a careless
// tracer would copy them: secrets lists them.
type leakCase struct {
	name    string
	secrets []string
	run     func(t *testing.T, obs agent.Observer)
}

func leakCases() []leakCase {
	s, _ := enforce.SchemaFor[Weather]()
	zero := agent.RetryPolicy{Backoff: func(int, error) time.Duration { return 0 }}
	noSecret := enforce.NewValidator("no-secret", func(_ context.Context, w Weather, _ enforce.Try) ([]enforce.Issue, error) {
		if w.City == "answer-secret-3" {
			return []enforce.Issue{{Path: "/city", Message: "validator-secret-4 says no to " + w.City}}, nil
		}
		return nil, nil
	})
	return []leakCase{{
		name: "exhausted after a provider error, tools and a validator",
		secrets: []string{"input-secret-1", "system-secret-2", "answer-secret-3", "validator-secret-4",
			"provider-secret-5", "arg-secret-6", "result-secret-7", "toolerr-secret-8", "toolpanic-secret-9", "prose-secret-10"},
		run: func(t *testing.T, obs agent.Observer) {
			m := agenttest.NewModel(t,
				agenttest.Fail(&agent.ProviderError{Kind: events.KindOverloaded, HTTPStatus: 529, Message: "provider-secret-5"}),
				agenttest.CallTools(agenttest.Call("c1", "lookup", `{"q":"arg-secret-6"}`),
					agenttest.Call("c2", "broken", `{}`), agenttest.Call("c3", "panicky", `{}`)),
				agenttest.Reply("Sure: prose-secret-10"),
				agenttest.Reply(`{"city":"answer-secret-3","tempC":31}`))
			tools := agent.WithTools(
				agent.Tool{Name: "lookup", Run: func(context.Context, json.RawMessage) (string, error) { return "result-secret-7", nil }},
				agent.Tool{Name: "broken", Run: func(context.Context, json.RawMessage) (string, error) { return "", errors.New("toolerr-secret-8") }},
				agent.Tool{Name: "panicky", Run: func(context.Context, json.RawMessage) (string, error) { panic("toolpanic-secret-9") }})
			a := agent.New(m, agent.WithOutputSchema(s), agent.WithOutputRetries(1), agent.WithValidators(noSecret),
				agent.WithSystemPrompt("system-secret-2"), tools, agent.WithModelRetry(zero), agent.WithObserver(obs))
			if _, err := a.Run(t.Context(), "input-secret-1"); !errors.Is(err, enforce.ErrExhausted) {
				t.Fatalf("err = %v, want the retries exhausted", err)
			}
		},
	}, {
		name:    "passing after a streamed answer cut early",
		secrets: []string{"stream-secret-11", "output-secret-12"},
		run: func(t *testing.T, obs agent.Observer) {
			m := agenttest.NewStreamingModel(t,
				agenttest.Reply(`{"city":"stream-secret-11","tempC":"stream-secret-11"} trailing`).InChunks(6),
				agenttest.Reply(`{"city":"output-secret-12","tempC":31}`).WithDetailedUsage(120, 9, 100, 4))
			a := agent.New(m, agent.WithOutputSchema(s), agent.WithOutputRetries(1), agent.WithObserver(obs))
			if _, err := a.Run(t.Context(), "hi"); err != nil {
				t.Fatal(err)
			}
		},
	}, {
		name:    "denied at input and at output",
		secrets: []string{"deny-secret-13", "deny-secret-14"},
		run: func(t *testing.T, obs agent.Observer) {
			in := middleware.Middleware{Name: "in", Input: func(context.Context, string) (string, error) {
				return "", middleware.Deny("deny-secret-13")
			}}
			out := middleware.Middleware{Name: "out", Output: func(context.Context, string) (string, error) {
				return "", middleware.Deny("deny-secret-14")
			}}
			for _, mw := range []middleware.Middleware{in, out} {
				m := agenttest.NewModel(t)
				if mw.Output != nil {
					m = agenttest.NewModel(t, agenttest.Reply(valid))
				}
				a := agent.New(m, agent.WithMiddleware(mw), agent.WithObserver(obs))
				if _, err := a.Run(t.Context(), "hi"); !errors.Is(err, middleware.ErrDenied) {
					t.Fatalf("err = %v, want a denial", err)
				}
			}
		},
	}, {
		name:    "refused by the model",
		secrets: []string{"refusal-secret-15"},
		run: func(t *testing.T, obs agent.Observer) {
			m := agenttest.NewModel(t, agenttest.Reply("refusal-secret-15").WithStop(agent.StopRefusal))
			a := agent.New(m, agent.WithOutputSchema(s), agent.WithOutputRetries(1), agent.WithObserver(obs))
			var re *agent.RefusalError
			if _, err := a.Run(t.Context(), "hi"); !errors.As(err, &re) {
				t.Fatalf("err = %v, want a refusal", err)
			}
		},
	}, {
		name:    "a validator that cannot judge, a model that panics",
		secrets: []string{"validatorerr-secret-16", "modelpanic-secret-17"},
		run: func(t *testing.T, obs agent.Observer) {
			failing := enforce.NewValidator("failing", func(context.Context, Weather, enforce.Try) ([]enforce.Issue, error) {
				return nil, errors.New("validatorerr-secret-16")
			})
			a := agent.New(agenttest.NewModel(t, agenttest.Reply(valid)), agent.WithOutputSchema(s), agent.WithOutputRetries(1),
				agent.WithValidators(failing), agent.WithObserver(obs))
			var ve *enforce.ValidatorError
			if _, err := a.Run(t.Context(), "hi"); !errors.As(err, &ve) {
				t.Fatalf("err = %v, want a validator error", err)
			}
			panicky := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) { panic("modelpanic-secret-17") })
			if _, err := agent.New(panicky, agent.WithObserver(obs)).Run(t.Context(), "hi"); !errors.Is(err, agent.ErrModel) {
				t.Fatalf("err = %v, want ErrModel", err)
			}
		},
	}, {
		name:    "cancelled with a cause",
		secrets: []string{"cause-secret-18"},
		run: func(t *testing.T, obs agent.Observer) {
			ctx, cancel := context.WithCancelCause(t.Context())
			m := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
				cancel(errors.New("cause-secret-18"))
				return agent.Response{}, context.Cause(ctx)
			})
			if _, err := agent.New(m, agent.WithObserver(obs)).Run(ctx, "hi"); err == nil {
				t.Fatal("the run passed; want it cancelled")
			}
		},
	}}
}

// exported is all the exporter got, as a JSON exporter would send it:
// every span's name, status, attributes, events and links.
func exported(t *testing.T, spans tracetest.SpanStubs) string {
	t.Helper()
	var b strings.Builder
	for _, s := range spans {
		j, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
		// Attribute values as they are, should JSON escape any byte.
		fmt.Fprintln(&b, s.Name, s.Status.Description)
		for _, kv := range s.Attributes {
			fmt.Fprintln(&b, kv.Key, kv.Value.Emit())
		}
		for _, e := range s.Events {
			fmt.Fprintln(&b, e.Name)
			for _, kv := range e.Attributes {
				fmt.Fprintln(&b, kv.Key, kv.Value.Emit())
			}
		}
	}
	return b.String()
}

func TestNoTextLeaksWithoutContent(t *testing.T) {
	for _, c := range leakCases() {
		for _, content := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, WithContent %v", c.name, content), func(t *testing.T) {
				tp, exp := traced(t)
				opts := []otel.Option{otel.WithTracerProvider(tp), otel.WithModel("test", "scripted-1")}
				if content {
					opts = append(opts, otel.WithContent())
				}
				c.run(t, otel.Observer(opts...))
				all := exported(t, exp.GetSpans())
				if len(exp.GetSpans()) == 0 {
					t.Fatal("no spans")
				}
				for _, secret := range c.secrets {
					// With WithContent each is there: the scan looks where
					// the text would be.
					if got := strings.Contains(all, secret); got != content {
						t.Errorf("the trace holds %q: %v, want %v; the trace:\n%s", secret, got, content, all)
					}
				}
			})
		}
	}
}

func TestRunSpanIsAChildOfTheCallersAndTheModelSeesItsChatSpan(t *testing.T) {
	tp, exp := traced(t)
	var seen []trace.SpanContext
	m := agent.ModelFunc(func(ctx context.Context, req agent.Request) (agent.Response, error) {
		seen = append(seen, trace.SpanContextFromContext(ctx))
		return agent.Response{Message: agent.Message{Content: valid}}, nil
	})
	a := newAgent(t, tp, m)

	ctx, parent := tp.Tracer("caller").Start(t.Context(), "handle request")
	if _, _, err := agent.RunTyped[Weather](ctx, a, prompt); err != nil {
		t.Fatal(err)
	}
	parent.End()

	spans := wantTree(t, exp, `handle request
  invoke_agent
    chat scripted-1
`)
	chat := span(t, spans, "chat scripted-1")
	if len(seen) != 1 || seen[0].SpanID() != chat.SpanContext.SpanID() {
		t.Errorf("the model saw span %v, want the chat span %v", seen, chat.SpanContext.SpanID())
	}
	if run := span(t, spans, "invoke_agent"); run.SpanContext.TraceID() != parent.SpanContext().TraceID() {
		t.Error("the run span is in another trace than the caller's")
	}
}

func TestStreamedCutIsOnTheChatSpanAndTheRow(t *testing.T) {
	tp, exp := traced(t)
	m := agenttest.NewStreamingModel(t, agenttest.Reply(`{"city":"Zanzibar","tempC":"hot"} and more text`).InChunks(4), agenttest.Reply(valid))
	a := newAgent(t, tp, m, agent.WithOutputRetries(1))

	_, res, err := agent.RunTyped[Weather](t.Context(), a, prompt)
	if err != nil {
		t.Fatal(err)
	}
	cut := res.Attempts[0].Cut
	if cut == nil {
		t.Fatal("the first answer was not cut")
	}
	spans := exp.GetSpans()
	var first tracetest.SpanStub
	for _, s := range spans {
		if s.Name == "chat scripted-1" && (first.Name == "" || s.StartTime.Before(first.StartTime)) {
			first = s
		}
	}
	wantAttrs(t, first, map[string]string{"enforcer.streamed": "true", "enforcer.cut.bytes": fmt.Sprint(cut.Bytes)})
	run := span(t, spans, "invoke_agent")
	if got := eventAttr(run, "enforcer.attempt", "enforcer.attempt.cut.bytes"); got != fmt.Sprint(cut.Bytes) {
		t.Errorf("the first row's event has cut.bytes %q, want %d", got, cut.Bytes)
	}
}

func eventAttr(s tracetest.SpanStub, event, key string) string {
	for _, e := range s.Events {
		if e.Name != event {
			continue
		}
		for _, kv := range e.Attributes {
			if kv.Key == attribute.Key(key) {
				return kv.Value.Emit()
			}
		}
	}
	return ""
}

func TestTurnRetryIsAnEventOnTheRunSpan(t *testing.T) {
	tp, exp := traced(t)
	down := &agent.ProviderError{Kind: events.KindServerError, HTTPStatus: 503}
	m := agenttest.NewModel(t, agenttest.Fail(down), agenttest.Reply(valid))
	a := newAgent(t, tp, m, agent.WithTurnRetry(agent.RetryPolicy{MaxAttempts: 2, Backoff: func(int, error) time.Duration { return 1500 * time.Millisecond }}))

	synctest.Test(t, func(t *testing.T) { // the 1.5 s wait passes at once
		if _, _, err := agent.RunTyped[Weather](context.Background(), a, prompt); err != nil {
			t.Fatal(err)
		}
	})
	spans := wantTree(t, exp, `invoke_agent
  · enforcer.retry retry.kind="turn" retry.attempt=1 retry.max_attempts=2 retry.delay_ms=1500 retry.reason="model call failed: server_error (HTTP 503)" error.type="server_error" http.response.status_code=503
  chat scripted-1 [Error: model call failed: server_error (HTTP 503)]
    · exception exception.type="*agent.ProviderError" exception.message="model call failed: server_error (HTTP 503)"
  chat scripted-1
`)
	wantAttrs(t, span(t, spans, "invoke_agent"), map[string]string{"enforcer.turn.attempts": "2"})
}

func TestParallelToolCallsAreSiblingSpansUnderTheRun(t *testing.T) {
	tp, exp := traced(t)
	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("c1", "lookup", `{}`), agenttest.Call("c2", "lookup", `{}`)),
		agenttest.Reply(valid))
	lookup := agent.Tool{Name: "lookup", Run: func(context.Context, json.RawMessage) (string, error) { return "31C", nil }}
	a := newAgent(t, tp, m, agent.WithTools(lookup), agent.WithParallelTools(2))

	if _, _, err := agent.RunTyped[Weather](t.Context(), a, prompt); err != nil {
		t.Fatal(err)
	}
	spans := exp.GetSpans()
	run := span(t, spans, "invoke_agent")
	ids := map[string]bool{}
	for _, s := range spans {
		if s.Name != "execute_tool lookup" {
			continue
		}
		ids[attrs(s)["gen_ai.tool.call.id"]] = true
		if s.Parent.SpanID() != run.SpanContext.SpanID() {
			t.Errorf("tool span %s is not a child of the run span", attrs(s)["gen_ai.tool.call.id"])
		}
	}
	if !ids["c1"] || !ids["c2"] || len(ids) != 2 {
		t.Errorf("tool spans for calls %v, want c1 and c2", ids)
	}
}

func TestRefusalIsAWithheldRowAndNoText(t *testing.T) {
	tp, exp := traced(t)
	m := agenttest.NewModel(t, agenttest.Reply("I will not talk about Zanzibar.").WithStop(agent.StopRefusal))
	a := newAgent(t, tp, m, agent.WithOutputRetries(2))

	_, _, err := agent.RunTyped[Weather](t.Context(), a, "hi")
	var re *agent.RefusalError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v, want a refusal", err)
	}
	spans := wantTree(t, exp, `invoke_agent [Error: agent: the model refused to answer]
  · enforcer.attempt attempt.number=1 attempt.iteration=1 attempt.outcome="exhausted" attempt.withheld="refusal"
  · exception exception.type="*agent.RefusalError" exception.message="agent: the model refused to answer"
  chat scripted-1
`)
	wantAttrs(t, span(t, spans, "invoke_agent"), map[string]string{"error.type": "refusal"})
	wantAttrs(t, span(t, spans, "chat scripted-1"), map[string]string{
		"gen_ai.response.finish_reasons": `["refusal"]`, "enforcer.response.length": fmt.Sprint(len(re.Text)),
	})
}

func TestRunRefusedBeforeItStartsIsAFailedRunSpan(t *testing.T) {
	type other struct {
		Name string `json:"name"`
	}
	tp, exp := traced(t)
	a := newAgent(t, tp, agenttest.NewModel(t)) // the Weather schema; the model is never called

	_, _, err := agent.RunTyped[other](t.Context(), a, prompt)
	if !errors.Is(err, agent.ErrInvalidOption) {
		t.Fatalf("err = %v, want ErrInvalidOption", err)
	}
	spans := wantTree(t, exp, `invoke_agent [Error: agent: invalid option]
  · exception exception.type="*fmt.wrapErrors" exception.message="agent: invalid option"
`)
	run := span(t, spans, "invoke_agent")
	wantAttrs(t, run, map[string]string{"error.type": "invalid_option", "enforcer.iterations": "0"})
	// No model was called: no token counts, rather than counts of 0.
	for _, k := range []string{"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"} {
		if v, ok := attrs(run)[k]; ok {
			t.Errorf("the run span has %s = %s", k, v)
		}
	}
}

// failingStart is a span processor that panics as a span named name
// starts, as a faulty processor of the user's might.
type failingStart struct {
	sdktrace.SpanProcessor
	name string
}

func (f failingStart) OnStart(parent context.Context, s sdktrace.ReadWriteSpan) {
	if s.Name() == f.name {
		panic("processor bug")
	}
	f.SpanProcessor.OnStart(parent, s)
}

func TestAnEndWhoseStartFailedLeavesTheCallersSpanAlone(t *testing.T) {
	for _, name := range []string{"invoke_agent", "chat scripted-1", "execute_tool lookup"} {
		t.Run(name, func(t *testing.T) {
			exp := tracetest.NewInMemoryExporter()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(failingStart{sdktrace.NewSimpleSpanProcessor(exp), name}))
			t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			m := agenttest.NewModel(t,
				agenttest.CallTools(agenttest.Call("c1", "lookup", `{}`)),
				agenttest.Reply(broken), agenttest.Reply(valid))
			lookup := agent.Tool{Name: "lookup", Run: func(context.Context, json.RawMessage) (string, error) { return "31C", nil }}
			a := newAgent(t, tp, m, agent.WithTools(lookup), agent.WithOutputRetries(1))

			ctx, parent := tp.Tracer("caller").Start(t.Context(), "handle request")
			if _, _, err := agent.RunTyped[Weather](ctx, a, prompt); err != nil {
				t.Fatal(err)
			}
			if !parent.IsRecording() {
				t.Error("the run ended the caller's span")
			}
			parent.End()
			spans := exp.GetSpans()
			got := tree(spans)
			if caller := span(t, spans, "handle request"); len(caller.Attributes) > 0 || len(caller.Events) > 0 {
				t.Errorf("the caller's span got attributes %v and events %v:\n%s", caller.Attributes, caller.Events, got)
			}
			if name == "invoke_agent" {
				return
			}
			run := span(t, spans, "invoke_agent")
			if len(run.Events) != 2 {
				t.Errorf("the run span has %d events, want its 2 rows:\n%s", len(run.Events), got)
			}
			for k := range attrs(run) {
				if strings.HasPrefix(k, "enforcer.response") || strings.HasPrefix(k, "enforcer.tool") || k == "enforcer.streamed" {
					t.Errorf("the run span has %s, the attribute of a call's span", k)
				}
			}
		})
	}
}

// namedModel is a model that tells its provider's and its own name, as
// the adapters do.
type namedModel struct{ agent.Model }

func (namedModel) ProviderName() string { return "anthropic" }
func (namedModel) ModelName() string    { return "claude-test" }

func TestTheModelNamesItselfAndItsProvider(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		opts                    func(m agent.Model) []otel.Option
		wantProvider, wantModel string
	}{
		{"told by the model", func(m agent.Model) []otel.Option { return []otel.Option{otel.WithModelOf(m)} }, "anthropic", "claude-test"},
		{"told by WithModel after it", func(m agent.Model) []otel.Option {
			return []otel.Option{otel.WithModelOf(m), otel.WithModel("aws.bedrock", "claude-on-bedrock")}
		}, "aws.bedrock", "claude-on-bedrock"},
		{"a model that tells nothing keeps WithModel's", func(agent.Model) []otel.Option {
			plain := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) { return agent.Response{}, nil })
			return []otel.Option{otel.WithModel("openai", "gpt-test"), otel.WithModelOf(plain)}
		}, "openai", "gpt-test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp, exp := traced(t)
			m := namedModel{agenttest.NewModel(t, agenttest.Reply(valid))}
			obs := otel.Observer(append([]otel.Option{otel.WithTracerProvider(tp)}, tc.opts(m)...)...)
			if _, err := agent.New(m, agent.WithObserver(obs)).Run(t.Context(), prompt); err != nil {
				t.Fatal(err)
			}
			spans := exp.GetSpans()
			want := map[string]string{"gen_ai.provider.name": tc.wantProvider, "gen_ai.request.model": tc.wantModel}
			wantAttrs(t, span(t, spans, "invoke_agent"), want)
			wantAttrs(t, span(t, spans, "chat "+tc.wantModel), want)
		})
	}
}

// TestTracedRunsLeaveNoGoroutine runs every kind of run of the leak test,
// traced, in a synctest bubble, which fails the test when a goroutine
// started in it is still blocked once the test's function returns.
func TestTracedRunsLeaveNoGoroutine(t *testing.T) {
	for _, c := range leakCases() {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tp, exp := traced(t)
				c.run(t, otel.Observer(otel.WithTracerProvider(tp)))
				if len(exp.GetSpans()) == 0 {
					t.Error("no spans")
				}
			})
		})
	}
	t.Run("parallel tools, one cancelled", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			tp, exp := traced(t)
			ctx, cancel := context.WithCancel(context.Background())
			m := agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("c1", "wait", `{}`), agenttest.Call("c2", "wait", `{}`)))
			var started sync.WaitGroup
			started.Add(2)
			wait := agent.Tool{Name: "wait", Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
				started.Done()
				started.Wait() // both calls run before the run is cancelled
				cancel()
				<-ctx.Done()
				return "", ctx.Err()
			}}
			a := newAgent(t, tp, m, agent.WithTools(wait), agent.WithParallelTools(2))
			if _, _, err := agent.RunTyped[Weather](ctx, a, prompt); !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			synctest.Wait() // the tools' goroutines end their spans and exit
			if n := len(exp.GetSpans()); n != 4 {
				t.Errorf("%d spans, want the run, the call and two tools:\n%s", n, tree(exp.GetSpans()))
			}
		})
	})
}

func TestAnAgentCalledAsAToolNestsItsRunUnderTheToolSpan(t *testing.T) {
	tp, exp := traced(t)
	inner := agent.New(agenttest.NewModel(t, agenttest.Reply("31C")),
		agent.WithObserver(otel.Observer(otel.WithTracerProvider(tp), otel.WithAgentName("forecaster"), otel.WithModel("test", "inner-1"))))
	ask := agent.Tool{Name: "forecaster", Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
		res, err := inner.Run(ctx, "Zanzibar")
		if err != nil {
			return "", err
		}
		return res.Output, nil
	}}
	m := agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("c1", "forecaster", `{}`)), agenttest.Reply(valid))
	a := newAgent(t, tp, m, agent.WithTools(ask))

	if _, _, err := agent.RunTyped[Weather](t.Context(), a, prompt); err != nil {
		t.Fatal(err)
	}
	spans := wantTree(t, exp, `invoke_agent
  chat scripted-1
  execute_tool forecaster
    invoke_agent forecaster
      chat inner-1
  chat scripted-1
`)
	wantAttrs(t, span(t, spans, "invoke_agent forecaster"), map[string]string{"gen_ai.agent.name": "forecaster", "enforcer.output.length": "3"})
}

func TestARepairedRowSaysItsRepairsOnItsEvent(t *testing.T) {
	tp, exp := traced(t)
	m := agenttest.NewModel(t, agenttest.Reply("```json\n"+valid+"\n```"))
	a := newAgent(t, tp, m, agent.WithOutputRetries(1), agent.WithRepairs(enforce.RepairFence))
	if _, _, err := agent.RunTyped[Weather](t.Context(), a, prompt); err != nil {
		t.Fatal(err)
	}
	run := span(t, exp.GetSpans(), "invoke_agent")
	if got := eventAttr(run, "enforcer.attempt", "enforcer.attempt.repaired"); got != `["fence"]` {
		t.Errorf("the passed row's event has repaired %q, want [fence]", got)
	}
}

func TestAUnionsRowSaysItsMemberOnItsEvent(t *testing.T) {
	type Refund struct {
		Order string `json:"order"`
	}
	type Escalation struct {
		Team string `json:"team"`
	}
	tp, exp := traced(t)
	m := agenttest.NewModel(t, agenttest.Reply(`{"escalation":{"team":"billing"}}`))
	a := agent.New(m, agent.WithClock(fixed), agent.WithOutputRetries(1),
		agent.WithObserver(otel.Observer(otel.WithTracerProvider(tp), otel.WithModel("test", "scripted-1"))))
	if _, _, err := agent.RunUnion(t.Context(), a, prompt, agent.Member[Refund]("refund", ""), agent.Member[Escalation]("escalation", "")); err != nil {
		t.Fatal(err)
	}
	run := span(t, exp.GetSpans(), "invoke_agent")
	if got := eventAttr(run, "enforcer.attempt", "enforcer.attempt.member"); got != "escalation" {
		t.Errorf("the passed row's event has member %q, want escalation", got)
	}
}

func TestAChoicesRowSaysItsKindOnItsEvent(t *testing.T) {
	labels, err := enforce.Choice(enforce.Label{Name: "positive"}, enforce.Label{Name: "negative"})
	if err != nil {
		t.Fatal(err)
	}
	tp, exp := traced(t)
	m := agenttest.NewModel(t, agenttest.Reply("pos"), agenttest.Reply("positive"))
	a := agent.New(m, agent.WithClock(fixed), agent.WithOutputSchema(labels), agent.WithOutputRetries(1),
		agent.WithObserver(otel.Observer(otel.WithTracerProvider(tp), otel.WithModel("test", "scripted-1"))))
	if _, _, err := agent.RunChoice[string](t.Context(), a, prompt); err != nil {
		t.Fatal(err)
	}
	run := span(t, exp.GetSpans(), "invoke_agent")
	var kinds []string
	for _, e := range run.Events {
		for _, kv := range e.Attributes {
			if e.Name == "enforcer.attempt" && kv.Key == "enforcer.attempt.kind" {
				kinds = append(kinds, kv.Value.Emit())
			}
		}
	}
	if got, want := fmt.Sprint(kinds), "[choice choice]"; got != want {
		t.Errorf("the rows' events have kinds %s, want %s", got, want)
	}
}
