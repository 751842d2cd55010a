package agent_test

import (
	"context"
	"errors"
	"iter"
	"reflect"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
)

// lookup is a tool offered in the tests that need one.
var lookup = agent.NewTool("lookup", "Looks up a city's weather.",
	func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return "21 degrees", nil
	})

func TestAStreamingModelIsStreamed(t *testing.T) {
	t.Run("a model with GenerateStream is never asked to Generate", func(t *testing.T) {
		sm := agenttest.NewStreamingModel(t, agenttest.Reply(valid).InChunks(4))
		m := streamOnly{sm}
		a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)))
		res, err := a.Run(t.Context(), "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.Output, valid; got != want {
			t.Errorf("Output = %q, want %q", got, want)
		}
		c := sm.Consumed()
		if len(c) != 1 || c[0].Chunks != c[0].TotalChunks || c[0].Chunks < 7 {
			t.Errorf("Consumed = %+v, want the whole reply in 4-byte chunks, read", c)
		}
	})
	t.Run("a model without it is asked to Generate", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(valid))
		if _, ok := agent.Model(m).(agent.StreamingModel); ok {
			t.Fatal("agenttest.Model streams; the test needs one that does not")
		}
		if _, err := agent.New(m, agent.WithOutputSchema(weatherSchema(t))).Run(t.Context(), "?"); err != nil {
			t.Fatal(err)
		}
	})
}

// streamOnly is a StreamingModel whose Generate fails the run.
type streamOnly struct{ *agenttest.StreamingModel }

func (streamOnly) Generate(context.Context, agent.Request) (agent.Response, error) {
	return agent.Response{}, errors.New("Generate called on a model that streams")
}

func TestAStreamedReplyIsAssembledAsGenerateGivesIt(t *testing.T) {
	steps := func() []agenttest.Step {
		return []agenttest.Step{
			agenttest.CallTools(
				agenttest.Call("c1", "lookup", `{"city":"Paris"}`),
				agenttest.Call("", "lookup", `{"city":"Oslo"}`),
			).InChunks(3).WithUsage(10, 4),
			agenttest.Chunks(
				agent.Chunk{Usage: agent.Usage{InputTokens: 30}},
				agent.Chunk{Text: `{"city":`},
				agent.Chunk{Text: `"Paris",`},
				agent.Chunk{Text: `"tempC":21}`, Usage: agent.Usage{OutputTokens: 7}},
				agent.Chunk{Stop: agent.StopComplete, StopRaw: "stop"},
			),
		}
	}
	run := func(m agent.Model) *agent.Result {
		res, err := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithTools(lookup)).Run(t.Context(), "Weather?")
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	streamed := run(agenttest.NewStreamingModel(t, steps()...))
	whole := run(agenttest.NewModel(t, steps()...))

	if !reflect.DeepEqual(streamed.Messages, whole.Messages) {
		t.Errorf("streamed conversation:\n%+v\nwant the one Generate gives:\n%+v", streamed.Messages, whole.Messages)
	}
	if got, want := streamed.Usage, (agent.Usage{InputTokens: 40, OutputTokens: 11}); got != want {
		t.Errorf("Usage = %+v, want %+v", got, want)
	}
	calls := streamed.Messages[2].ToolCalls
	if len(calls) != 2 || calls[0].ID != "c1" || string(calls[1].Arguments) != `{"city":"Oslo"}` {
		t.Errorf("tool calls = %+v, want both, whole, with c1's ID", calls)
	}
}

// chunks is a model that streams exactly chunks (and may panic on the way).
type chunks func(yield func(agent.Chunk, error) bool)

func (c chunks) Generate(context.Context, agent.Request) (agent.Response, error) {
	return agent.Response{}, errors.New("not streamed")
}

func (c chunks) GenerateStream(context.Context, agent.Request) iter.Seq2[agent.Chunk, error] {
	return iter.Seq2[agent.Chunk, error](c)
}

func TestABrokenStreamIsAModelError(t *testing.T) {
	tests := []struct {
		name string
		m    chunks
	}{
		{"a panic in the iterator", func(yield func(agent.Chunk, error) bool) {
			yield(agent.Chunk{Text: "{"}, nil)
			panic("stream on fire")
		}},
		{"a tool call continued before it began", func(yield func(agent.Chunk, error) bool) {
			yield(agent.Chunk{Call: &agent.CallDelta{Index: 1, Name: "lookup"}}, nil)
		}},
		{"chunks after an error", func(yield func(agent.Chunk, error) bool) {
			yield(agent.Chunk{Text: "{"}, nil)
			yield(agent.Chunk{}, errors.New("connection reset"))
			yield(agent.Chunk{Text: `"city":"Paris","tempC":21}`}, nil) // ignores that the loop stopped
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := agent.New(tt.m, agent.WithTools(lookup)).Run(t.Context(), "?")
			if !errors.Is(err, agent.ErrModel) {
				t.Fatalf("err = %v, want ErrModel", err)
			}
			if res.Output != "" || len(res.Messages) != 1 {
				t.Errorf("the broken reply was kept: Output %q, %d messages", res.Output, len(res.Messages))
			}
		})
	}
}

func TestAStreamCutByTheProviderIsAFailedCall(t *testing.T) {
	lost := &agent.ProviderError{System: "test", Kind: events.KindConnection, Message: "stream cut"}
	t.Run("the half reply is not an answer", func(t *testing.T) {
		m := agenttest.NewStreamingModel(t, agenttest.Reply(valid).InChunks(5).FailAfter(2, lost))
		res, err := agent.New(m, agent.WithOutputSchema(weatherSchema(t))).Run(t.Context(), "?")
		var pe *agent.ProviderError
		if !errors.Is(err, agent.ErrModel) || !errors.As(err, &pe) || pe.Kind != events.KindConnection {
			t.Fatalf("err = %v, want ErrModel wrapping the connection failure", err)
		}
		if last := res.Messages[len(res.Messages)-1]; res.Output != "" || last.Role != agent.RoleUser {
			t.Errorf("the half reply was kept: Output %q, last message %+v", res.Output, last)
		}
	})
	t.Run("a model retry calls again, and only the whole reply counts", func(t *testing.T) {
		m := agenttest.NewStreamingModel(t,
			agenttest.Reply(valid).InChunks(5).FailAfter(2, lost),
			agenttest.Reply(valid).InChunks(5),
		)
		s := newStream(t)
		a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithEvents(s),
			agent.WithModelRetry(agent.RetryPolicy{Backoff: zeroDelay}))
		res, err := a.Run(t.Context(), "?")
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Messages[len(res.Messages)-2:]; got[0].Role != agent.RoleUser || got[1].Content != valid {
			t.Errorf("messages end with %+v, want the input and the whole reply", got)
		}
		ms, ns := methods(t, s)
		if !containsMethod(ms, "turn/modelRetryScheduled") {
			t.Errorf("events = %v, want a model retry", ms)
		}
		_ = ns
	})
}

func containsMethod(ms []string, m string) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}

// cutRun runs a streaming model over steps with retries, and returns the
// result and what the model consumed.
func cutRun(t *testing.T, opts []agent.Option, steps ...agenttest.Step) (*agent.Result, error, *agenttest.StreamingModel) {
	t.Helper()
	m := agenttest.NewStreamingModel(t, steps...)
	opts = append([]agent.Option{agent.WithOutputSchema(weatherSchema(t))}, opts...)
	res, err := agent.New(m, opts...).Run(t.Context(), "Weather in Paris?")
	return res, err, m
}

func TestEarlyAbort(t *testing.T) {
	retries := []agent.Option{agent.WithOutputRetries(2)}
	tests := []struct {
		name   string
		answer string
		read   string // the answer up to the byte that dooms it
		stage  enforce.Stage
		path   string
	}{
		{"prose is cut at its first byte", prose, "S", enforce.StageJSONParse, ""},
		{"a fence is cut at its first byte", "```json\n" + valid + "\n```", "`", enforce.StageJSONParse, ""},
		{"a wrong type is cut at the value's first byte", `{"city":true,"tempC":21}`, `{"city":t`, enforce.StageSchemaValidate, "/city"},
		{"a number of the wrong type is cut where it ends", `{"city":21,"tempC":21}`, `{"city":21,`, enforce.StageSchemaValidate, "/city"},
		{"an unknown member is cut when its name closes", `{"town":"Paris","city":"Paris","tempC":21}`, `{"town"`, enforce.StageSchemaValidate, "/town"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err, m := cutRun(t, retries, agenttest.Reply(tt.answer).InChunks(1), agenttest.Reply(valid).InChunks(8))
			if err != nil {
				t.Fatal(err)
			}
			c := m.Consumed()[0]
			if c.Bytes != len(tt.read) || !c.Stopped || !c.Cancelled || c.Bytes >= c.TotalBytes {
				t.Errorf("consumed %+v, want %d of %d bytes, stopped and cancelled", c, len(tt.read), len(tt.answer))
			}
			r := res.Attempts[0]
			if r.Outcome != enforce.OutcomeRetried || r.Stage != tt.stage || r.Path != tt.path {
				t.Errorf("row 1 = %+v, want retried at %s %q", r, tt.stage, tt.path)
			}
			if r.Cut == nil || r.Cut.Bytes != len(tt.read) {
				t.Errorf("row 1 Cut = %+v, want %d bytes", r.Cut, len(tt.read))
			}
			if res.Attempts[1].Outcome != enforce.OutcomePassed || res.Attempts[1].Cut != nil {
				t.Errorf("row 2 = %+v, want passed, whole", res.Attempts[1])
			}
			// The model sees what it wrote up to the cut, and the
			// corrective, in the very next request.
			req := m.Requests()[1].Messages
			partial, corrective := req[len(req)-2], req[len(req)-1]
			if partial.Role != agent.RoleAssistant || partial.Content != tt.read {
				t.Errorf("the request after the cut ends with %+v, want the answer up to the cut, %q", partial, tt.read)
			}
			if corrective.Role != agent.RoleUser || !strings.Contains(corrective.Content, "stopped reading your previous answer") {
				t.Errorf("corrective = %q, want one that says the answer was stopped", corrective.Content)
			}
			if got := res.Messages[2]; !reflect.DeepEqual(got, partial) {
				t.Errorf("Result.Messages[2] = %+v, want the cut answer", got)
			}
		})
	}

	t.Run("the row says the output tokens reported before the cut", func(t *testing.T) {
		res, _, _ := cutRun(t, retries,
			agenttest.Chunks(agent.Chunk{Usage: agent.Usage{InputTokens: 50, OutputTokens: 1}}, agent.Chunk{Text: "{"},
				agent.Chunk{Usage: agent.Usage{OutputTokens: 3}}, agent.Chunk{Text: `"city":false`}, agent.Chunk{Text: "}"}),
			agenttest.Reply(valid))
		if got, want := res.Attempts[0].Cut, (&enforce.Cut{Bytes: len(`{"city":f`), OutputTokens: 3}); !reflect.DeepEqual(got, want) {
			t.Errorf("Cut = %+v, want %+v", got, want)
		}
		if got, want := res.Usage.InputTokens, 50; got != want {
			t.Errorf("Usage.InputTokens = %d, want %d", got, want)
		}
	})

	notCut := []struct {
		name  string
		opts  []agent.Option
		steps []agenttest.Step
		first string // the first reply's text, whole
	}{
		{"nothing is cut without retries", nil,
			[]agenttest.Step{agenttest.Reply(prose).InChunks(1)}, prose},
		{"nothing is cut with no retry left", []agent.Option{agent.WithOutputRetries(0)},
			[]agenttest.Step{agenttest.Reply(prose).InChunks(1)}, prose},
		{"nothing is cut on the last iteration", []agent.Option{agent.WithOutputRetries(2), agent.WithMaxIterations(1)},
			[]agenttest.Step{agenttest.Reply(prose).InChunks(1)}, prose},
		{"nothing is cut when opted out", []agent.Option{agent.WithOutputRetries(2), agent.WithEarlyAbort(false)},
			[]agenttest.Step{agenttest.Reply(prose).InChunks(1), agenttest.Reply(valid)}, prose},
		{"nothing is cut when an output step might mend the answer",
			[]agent.Option{agent.WithOutputRetries(2), agent.WithMiddleware(output("unfence", func(_ context.Context, s string) (string, error) {
				return strings.TrimSuffix(strings.TrimPrefix(s, "```json\n"), "\n```"), nil
			}))},
			[]agenttest.Step{agenttest.Reply("```json\n" + valid + "\n```").InChunks(1)}, "```json\n" + valid + "\n```"},
		{"with tools offered, prose before a tool call is not cut",
			[]agent.Option{agent.WithOutputRetries(2), agent.WithTools(lookup)},
			[]agenttest.Step{
				agenttest.Chunks(agent.Chunk{Text: "I'll "}, agent.Chunk{Text: "look that up."},
					agent.Chunk{Call: &agent.CallDelta{Index: 0, ID: "c1", Name: "lookup", Arguments: `{"city":"Paris"}`}}),
				agenttest.Reply(valid).InChunks(1),
			}, "I'll look that up."},
		{"with tools offered, text that looks like JSON before a tool call is not cut",
			[]agent.Option{agent.WithOutputRetries(2), agent.WithTools(lookup)},
			[]agenttest.Step{
				agenttest.Chunks(agent.Chunk{Text: "[Looking up "}, agent.Chunk{Text: "Paris]"},
					agent.Chunk{Call: &agent.CallDelta{Index: 0, ID: "c1", Name: "lookup", Arguments: `{"city":"Paris"}`}}),
				agenttest.Reply(valid).InChunks(1),
			}, "[Looking up Paris]"},
		{"with tools offered, an answer that opens a JSON object is judged at its end",
			[]agent.Option{agent.WithOutputRetries(2), agent.WithTools(lookup)},
			[]agenttest.Step{agenttest.Reply(` {"city":true}`).InChunks(1), agenttest.Reply(valid)}, ` {"city":true}`},
		{"with an output tool, text before the answer's call is not cut",
			[]agent.Option{agent.WithOutputRetries(2), agent.WithOutputTool("answer")},
			[]agenttest.Step{
				agenttest.Chunks(agent.Chunk{Text: "[Answering]"},
					agent.Chunk{Call: &agent.CallDelta{Index: 0, ID: "c1", Name: "answer", Arguments: valid}}),
			}, "[Answering]"},
		{"with tools offered, a final answer in prose is judged at its end",
			[]agent.Option{agent.WithOutputRetries(2), agent.WithTools(lookup)},
			[]agenttest.Step{agenttest.Reply(prose).InChunks(1), agenttest.Reply(valid)}, prose},
	}
	for _, tt := range notCut {
		t.Run(tt.name, func(t *testing.T) {
			res, _, m := cutRun(t, tt.opts, tt.steps...)
			for i, c := range m.Consumed() {
				if c.Stopped || c.Bytes != c.TotalBytes {
					t.Errorf("reply %d: consumed %+v, want all of it", i+1, c)
				}
			}
			for _, r := range res.Attempts {
				if r.Cut != nil {
					t.Errorf("row %+v is cut", r)
				}
			}
			if first := res.Messages[2]; first.Content != tt.first {
				t.Errorf("the first reply in the conversation is %q, want it whole", first.Content)
			}
		})
	}

	for _, stop := range []agent.StopReason{agent.StopRefusal, agent.StopContentFilter} {
		t.Run("a reply marked "+string(stop)+" from its first chunk is not cut", func(t *testing.T) {
			refusal := "I'm sorry, I can't help with that."
			res, err, m := cutRun(t, retries, agenttest.Chunks(
				agent.Chunk{Text: refusal[:4], Stop: stop}, agent.Chunk{Text: refusal[4:]}))
			var re *agent.RefusalError
			if !errors.As(err, &re) || re.Stop != stop || re.Text != refusal {
				t.Fatalf("err = %#v, want an *agent.RefusalError %q with the whole text", err, stop)
			}
			if c := m.Consumed()[0]; c.Stopped || c.Bytes != c.TotalBytes {
				t.Errorf("consumed %+v, want all of it", c)
			}
			if len(res.Attempts) != 1 || res.Attempts[0].Cut != nil || res.Attempts[0].Withheld != string(stop) {
				t.Errorf("rows = %+v, want one uncut row withheld for %q", res.Attempts, stop)
			}
		})
	}

	t.Run("the cut is recorded like any retried row", func(t *testing.T) {
		s := newStream(t)
		res, err, _ := cutRun(t, append(retries, agent.WithEvents(s)), agenttest.Reply(prose).InChunks(3), agenttest.Reply(valid))
		if err != nil {
			t.Fatal(err)
		}
		ms, _ := methods(t, s)
		if !containsMethod(ms, "output/schemaRetry") {
			t.Errorf("events = %v, want output/schemaRetry", ms)
		}
		if got := res.Attempts[0].Cut.Bytes; got != 1 {
			t.Errorf("Cut.Bytes = %d, want 1: the answer up to the dooming byte, not the whole chunk", got)
		}
	})
}

func TestCancellingWhileAReplyStreamsReturnsTheCause(t *testing.T) {
	cause := errors.New("user left")
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	m := chunks(func(yield func(agent.Chunk, error) bool) {
		if !yield(agent.Chunk{Text: `{"city":`}, nil) {
			return
		}
		cancel(cause)
		yield(agent.Chunk{}, context.Canceled) // what a provider's stream says once its context ends
	})
	res, err := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1)).Run(ctx, "?")
	if !errors.Is(err, cause) {
		t.Errorf("err = %v, want the context's cause", err)
	}
	if res == nil || res.Output != "" || len(res.Attempts) != 0 {
		t.Errorf("Result = %+v, want no answer and no row", res)
	}
}

// A model that streams on after the run's context ended (it ignores ctx)
// is not read on: the loop stops at the next chunk and returns the cause,
// whether or not the answer is being judged.
func TestAStreamThatIgnoresItsContextIsNotReadOn(t *testing.T) {
	for _, opts := range [][]agent.Option{nil, {agent.WithOutputRetries(1)}} {
		cause := errors.New("user left")
		ctx, cancel := context.WithCancelCause(t.Context())
		read := 0
		m := chunks(func(yield func(agent.Chunk, error) bool) {
			if !yield(agent.Chunk{Text: `{"city":"`}, nil) {
				return
			}
			cancel(cause)
			for range 100_000 { // an answer that never ends, as far as the loop can tell
				if !yield(agent.Chunk{Text: "Paris "}, nil) {
					return
				}
				read++
			}
		})
		res, err := agent.New(m, append([]agent.Option{agent.WithOutputSchema(weatherSchema(t))}, opts...)...).Run(ctx, "?")
		if !errors.Is(err, cause) {
			t.Errorf("err = %v, want the context's cause", err)
		}
		if read > 0 {
			t.Errorf("the loop read %d chunks after the context ended, want none", read)
		}
		if res == nil || res.Output != "" || len(res.Attempts) != 0 {
			t.Errorf("Result has output %q and %d rows, want no answer and no row", res.Output, len(res.Attempts))
		}
	}
}

// A streamed answer is read no further than the contract's answer size
// bound, early abort or not: the byte past the bound decides the verdict
// (json-parse, the answer too long), as Check decides it for the whole
// text, so the loop cancels the call and keeps only that much, and a
// model that writes without end costs bounded memory.
func TestAStreamedAnswerIsReadNoFurtherThanTheSizeBound(t *testing.T) {
	const bound = 64
	schema := weatherSchema(t).WithMaxAnswerBytes(bound)
	huge := `{"city":"` + strings.Repeat("Paris ", 10_000) + `","tempC":21}`
	tests := []struct {
		name string
		opts []agent.Option
		rows int
	}{
		{"without retries", nil, 0},
		{"with early abort off", []agent.Option{agent.WithOutputRetries(1), agent.WithEarlyAbort(false)}, 2},
		{"with early abort", []agent.Option{agent.WithOutputRetries(1)}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps := []agenttest.Step{agenttest.Reply(huge).InChunks(16)}
			if tt.rows > 0 {
				steps = append(steps, agenttest.Reply(valid))
			}
			m := agenttest.NewStreamingModel(t, steps...)
			opts := append([]agent.Option{agent.WithOutputSchema(schema)}, tt.opts...)
			res, err := agent.New(m, opts...).Run(t.Context(), "?")
			c := m.Consumed()[0]
			if !c.Stopped || !c.Cancelled || c.Bytes > bound+16 {
				t.Errorf("consumed %+v, want the stream stopped and cancelled within a chunk of byte %d", c, bound+1)
			}
			if got := res.Messages[2].Content; got != huge[:bound+1] {
				t.Errorf("the conversation keeps %d bytes of the answer, want %d", len(got), bound+1)
			}
			want := checkError(t, schema, huge)
			if tt.rows == 0 {
				var oe *enforce.OutputError
				if !errors.As(err, &oe) || oe.Stage != enforce.StageJSONParse || oe.Path != "" || !strings.Contains(err.Error(), want.Issues[0].Message) {
					t.Fatalf("err = %v, want the verdict Check gives the whole answer: %v", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := res.Attempts[0]
			if r.Outcome != enforce.OutcomeRetried || r.Stage != enforce.StageJSONParse || r.Error != want.Issues[0].Message ||
				r.Cut == nil || r.Cut.Bytes != bound+1 {
				t.Errorf("row 1 = %+v, want retried at json-parse with Check's %q, cut after %d bytes", r, want.Issues[0].Message, bound+1)
			}
			if len(res.Attempts) != 2 || res.Attempts[1].Outcome != enforce.OutcomePassed {
				t.Errorf("rows = %+v, want a second that passed", res.Attempts)
			}
		})
	}
}
