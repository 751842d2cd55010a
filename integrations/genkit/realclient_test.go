package genkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/firebase/genkit/go/ai"
	gk "github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/compat_oai"
	"github.com/openai/openai-go/option"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/fnv"
	enforcergenkit "github.com/enforcer-go/enforcer/integrations/genkit"
	"github.com/enforcer-go/enforcer/integrations/internal/gluetest"
)

type Weather struct {
	City  string `json:"city"`
	TempC int    `json:"tempC"`
}

// scripted is Genkit with its OpenAI-compatible plugin (compat_oai)
// pointed at srv, enforcer's format defined, and the plugin's model "m":
// the client a Genkit program runs. The OpenAI client's own retries are
// off, so the Guard's are the only ones.
func scripted(t *testing.T, srv *gluetest.Server) (*gk.Genkit, ai.Model) {
	t.Helper()
	oai := &compat_oai.OpenAICompatible{Provider: "scripted", APIKey: "k", BaseURL: srv.URL,
		Opts: []option.RequestOption{option.WithMaxRetries(0)}}
	g := gk.Init(context.Background(), gk.WithPlugins(oai))
	enforcergenkit.DefineFormat(g)
	return g, oai.DefineModel("scripted", "m", ai.ModelOptions{Supports: &compat_oai.BasicText})
}

func guard(t *testing.T, opts ...enforcergenkit.Option) *enforcergenkit.Guard {
	t.Helper()
	g, err := enforcergenkit.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// outcomes is the rows' outcomes, in order.
func outcomes(rows []enforce.Attempt) []enforce.Outcome {
	var out []enforce.Outcome
	for _, r := range rows {
		out = append(out, r.Outcome)
	}
	return out
}

func equal[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// lastMessage is the content of the last message of the server's i-th
// request.
func lastMessage(t *testing.T, srv *gluetest.Server, i int) (role, content string) {
	t.Helper()
	msgs, _ := srv.Requests()[i]["messages"].([]any)
	if len(msgs) == 0 {
		t.Fatalf("request %d has no messages", i+1)
	}
	m, _ := msgs[len(msgs)-1].(map[string]any)
	role, _ = m["role"].(string)
	switch c := m["content"].(type) {
	case string:
		content = c
	case []any: // compat_oai sends a user turn as parts
		for _, p := range c {
			pm, _ := p.(map[string]any)
			s, _ := pm["text"].(string)
			content += s
		}
	}
	return role, content
}

// A struct answer that fails its contract is corrected through Genkit's
// real client: the failed answer and a corrective user turn go to the
// model, whose second answer passes and is decoded by
// ModelResponse.Output; both rows are recorded and the usage of both
// calls is counted.
func TestAFailingAnswerIsCorrected(t *testing.T) {
	srv := gluetest.NewServer(t,
		gluetest.Reply{Body: gluetest.Completion(`{"city":"Paris"}`, 10, 4)},
		gluetest.Reply{Body: gluetest.Completion(`{"city":"Paris","tempC":21}`, 30, 6)})
	g, m := scripted(t, srv)
	guard := guard(t, enforcergenkit.WithOutputRetries(1))
	resp, err := gk.Generate(context.Background(), g, ai.WithModel(m), ai.WithPrompt("Weather in Paris?"),
		ai.WithOutputType(Weather{}), ai.WithOutputFormat(enforcergenkit.Format), ai.WithMiddleware(guard.Middleware()))
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	var w Weather
	if err := resp.Output(&w); err != nil {
		t.Fatalf("output: %v", err)
	}
	if want := (Weather{"Paris", 21}); w != want {
		t.Errorf("output = %+v, want %+v", w, want)
	}
	rows := guard.Attempts()
	if got, want := outcomes(rows), []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomePassed}; !equal(got, want) {
		t.Fatalf("rows = %v, want %v", got, want)
	}
	if rows[0].Path != "/tempC" {
		t.Errorf("row 1 path = %q, want /tempC", rows[0].Path)
	}
	role, content := lastMessage(t, srv, 1)
	if role != "user" || fnv.Hex32a(content) != rows[0].CorrectiveMessageHash {
		t.Errorf("the second request ends with a %s turn hashing to %s, want the corrective user turn (%s)", role, fnv.Hex32a(content), rows[0].CorrectiveMessageHash)
	}
	if got, want := guard.Usage(), (agent.Usage{InputTokens: 40, OutputTokens: 10}); got != want {
		t.Errorf("guard usage = %+v, want %+v", got, want)
	}
	if resp.Usage == nil || resp.Usage.InputTokens != 40 || resp.Usage.OutputTokens != 10 {
		t.Errorf("response usage = %+v, want both calls' (40 in, 10 out)", resp.Usage)
	}
}

// With no retries left, Genkit's generate call fails with the
// *enforce.OutputError, carrying the answer and its row.
func TestAnExhaustedAnswerFailsWithTheOutputError(t *testing.T) {
	srv := gluetest.NewServer(t, gluetest.Reply{Body: gluetest.Completion(`{"city":"Paris","tempC":"warm"}`, 10, 4)})
	g, m := scripted(t, srv)
	guard := guard(t)
	_, err := gk.Generate(context.Background(), g, ai.WithModel(m), ai.WithPrompt("Weather in Paris?"),
		ai.WithOutputType(Weather{}), ai.WithOutputFormat(enforcergenkit.Format), ai.WithMiddleware(guard.Middleware()))
	var oe *enforce.OutputError
	if !errors.As(err, &oe) {
		t.Fatalf("error = %v, want an *enforce.OutputError", err)
	}
	if oe.Output != `{"city":"Paris","tempC":"warm"}` || oe.Path != "/tempC" {
		t.Errorf("output error = %q at %q, want the answer at /tempC", oe.Output, oe.Path)
	}
	if got, want := outcomes(guard.Attempts()), []enforce.Outcome{enforce.OutcomeExhausted}; !equal(got, want) {
		t.Errorf("rows = %v, want %v", got, want)
	}
}

// A streamed answer that cannot pass is cut at the byte that dooms it:
// the server's endless stream is left unread, the row says where it was
// cut, and the corrected answer streams after a corrective chunk of role
// user, at a new message index.
func TestADoomedStreamIsCutEarly(t *testing.T) {
	srv := gluetest.NewServer(t,
		gluetest.Reply{Events: []string{gluetest.Content(`{"city":`), gluetest.Content(`42`)}, Endless: gluetest.Content(" ")},
		gluetest.Reply{Events: []string{gluetest.Content(`{"city":"Paris",`), gluetest.Content(`"tempC":21}`), gluetest.Delta(`{}`, "stop")}})
	g, m := scripted(t, srv)
	guard := guard(t, enforcergenkit.WithOutputRetries(1))
	type seen struct {
		role  ai.Role
		index int
		text  string
	}
	var chunks []seen
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := gk.Generate(ctx, g, ai.WithModel(m), ai.WithPrompt("Weather in Paris?"),
		ai.WithOutputType(Weather{}), ai.WithOutputFormat(enforcergenkit.Format), ai.WithMiddleware(guard.Middleware()),
		ai.WithStreaming(func(_ context.Context, c *ai.ModelResponseChunk) error {
			chunks = append(chunks, seen{c.Role, c.Index, c.Text()})
			return nil
		}))
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	if n := srv.Sent(0); n >= gluetest.MaxEndless {
		t.Fatalf("the doomed stream was read to its end (%d events)", n)
	}
	rows := guard.Attempts()
	if got, want := outcomes(rows), []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomePassed}; !equal(got, want) {
		t.Fatalf("rows = %v, want %v", got, want)
	}
	// The number is known whole, and at /city wrong, at the space after it.
	if rows[0].Cut == nil || rows[0].Cut.Bytes != len(`{"city":42 `) {
		t.Errorf("row 1 cut = %+v, want one at byte %d", rows[0].Cut, len(`{"city":42 `))
	}
	if resp.Text() != `{"city":"Paris","tempC":21}` {
		t.Errorf("answer = %q", resp.Text())
	}
	want := []seen{{ai.RoleModel, 0, `{"city":`}, {ai.RoleModel, 0, `42`}, {ai.RoleUser, 1, ""}, {ai.RoleModel, 2, `{"city":"Paris",`}, {ai.RoleModel, 2, `"tempC":21}`}}
	if len(chunks) != len(want) {
		t.Fatalf("chunks = %+v, want %d", chunks, len(want))
	}
	for i := range want {
		got := chunks[i]
		if i == 2 {
			got.text = "" // the corrective message, asserted by its row's hash elsewhere
		}
		if got != want[i] {
			t.Errorf("chunk %d = %+v, want %+v", i, got, want[i])
		}
	}
}

// A 429 and then a 503 through compat_oai's client are retried under
// WithModelRetry, the 429's Retry-After read from the *openai.Error
// Genkit passes on.
func TestA429ThenA503AreRetried(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		name := map[bool]string{false: "generated", true: "streamed"}[streamed]
		t.Run(name, func(t *testing.T) {
			ok := gluetest.Reply{Body: gluetest.Completion(`{"city":"Paris","tempC":21}`, 10, 4)}
			if streamed {
				ok = gluetest.Reply{Events: []string{gluetest.Content(`{"city":"Paris","tempC":21}`), gluetest.Delta(`{}`, "stop")}}
			}
			srv := gluetest.NewServer(t,
				gluetest.Reply{Status: 429, Header: map[string]string{"Retry-After": "3"}, Body: gluetest.Error("rate_limit_exceeded", "Rate limit reached")},
				gluetest.Reply{Status: 503, Body: gluetest.Error("server_error", "The engine is currently overloaded")},
				ok)
			g, m := scripted(t, srv)
			type retry struct {
				kind       events.ErrorKind
				status     int
				retryAfter time.Duration
				system     string
			}
			var got []retry
			guard := guard(t, enforcergenkit.WithModelRetry(agent.RetryPolicy{Backoff: func(_ int, err error) time.Duration {
				var pe *agent.ProviderError
				if errors.As(err, &pe) {
					got = append(got, retry{pe.Kind, pe.HTTPStatus, pe.RetryAfter, pe.System})
				}
				return 0
			}}))
			opts := []ai.GenerateOption{ai.WithModel(m), ai.WithPrompt("Weather in Paris?"),
				ai.WithOutputType(Weather{}), ai.WithOutputFormat(enforcergenkit.Format), ai.WithMiddleware(guard.Middleware())}
			if streamed {
				opts = append(opts, ai.WithStreaming(func(context.Context, *ai.ModelResponseChunk) error { return nil }))
			}
			resp, err := gk.Generate(context.Background(), g, opts...)
			if err != nil {
				t.Fatalf("generate: %v", err)
			}
			if resp.Text() != `{"city":"Paris","tempC":21}` {
				t.Errorf("answer = %q", resp.Text())
			}
			want := []retry{{events.KindRateLimit, 429, 3 * time.Second, enforcergenkit.System}, {events.KindOverloaded, 503, 0, enforcergenkit.System}}
			if !equal(got, want) {
				t.Errorf("retries = %+v, want %+v", got, want)
			}
			if n := len(srv.Requests()); n != 3 {
				t.Errorf("server saw %d requests, want 3", n)
			}
		})
	}
}

// toolCall is a chat completion whose answer is one call of name.
func toolCall(id, name, args string, in, out int) string {
	b, _ := json.Marshal(map[string]any{
		"id": "c1", "object": "chat.completion", "model": "m",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls",
			"message": map[string]any{"role": "assistant", "content": "", "tool_calls": []any{
				map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}}}}}},
		"usage": map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
	})
	return string(b)
}

// A tool round trip runs through Genkit: the reply with a tool request
// passes the Guard unjudged, Genkit runs the tool and sends its output,
// and the final answer is judged (and here corrected). The Guard counts
// every call's usage, the tool turn's too, which Genkit's response does
// not: it has its last turn's.
func TestAToolRoundTripIsCountedWhole(t *testing.T) {
	srv := gluetest.NewServer(t,
		gluetest.Reply{Body: toolCall("call_1", "lookup", `{"city":"Paris"}`, 10, 5)},
		gluetest.Reply{Body: gluetest.Completion(`{"city":"Paris"}`, 20, 4)},
		gluetest.Reply{Body: gluetest.Completion(`{"city":"Paris","tempC":21}`, 40, 6)})
	g, m := scripted(t, srv)
	var asked []string
	lookup := gk.DefineTool(g, "lookup", "Looks a city's weather up.", func(_ *ai.ToolContext, in struct {
		City string `json:"city"`
	}) (string, error) {
		asked = append(asked, in.City)
		return "21 degrees", nil
	})
	guard := guard(t, enforcergenkit.WithOutputRetries(1))
	resp, err := gk.Generate(context.Background(), g, ai.WithModel(m), ai.WithPrompt("Weather in Paris?"), ai.WithTools(lookup),
		ai.WithOutputType(Weather{}), ai.WithOutputFormat(enforcergenkit.Format), ai.WithMiddleware(guard.Middleware()))
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	if !equal(asked, []string{"Paris"}) {
		t.Errorf("tool asked for %v, want [Paris]", asked)
	}
	if role, content := lastMessage(t, srv, 1); role != "tool" || content != `"21 degrees"` {
		t.Errorf("second request ends with %s %q, want the tool's output", role, content)
	}
	rows := guard.Attempts()
	if got, want := outcomes(rows), []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomePassed}; !equal(got, want) {
		t.Fatalf("rows = %v, want %v", got, want)
	}
	if rows[0].Iteration != 2 || rows[1].Iteration != 3 {
		t.Errorf("rows' iterations = %d, %d, want 2, 3 (the tool turn was the first)", rows[0].Iteration, rows[1].Iteration)
	}
	if got, want := guard.Usage(), (agent.Usage{InputTokens: 70, OutputTokens: 15}); got != want {
		t.Errorf("guard usage = %+v, want every call's %+v", got, want)
	}
	if resp.Usage == nil || resp.Usage.InputTokens != 60 || resp.Usage.OutputTokens != 10 {
		t.Errorf("response usage = %+v, want its turn's two calls (60 in, 10 out)", resp.Usage)
	}
}

// An array output (ai.WithOutputType of a slice) is held to its
// contract as an object is: an item that fails is corrected.
func TestAnArrayOutputIsCorrected(t *testing.T) {
	srv := gluetest.NewServer(t,
		gluetest.Reply{Body: gluetest.Completion(`[{"city":"Paris","tempC":21},{"city":"Oslo"}]`, 10, 4)},
		gluetest.Reply{Body: gluetest.Completion(`[{"city":"Paris","tempC":21},{"city":"Oslo","tempC":3}]`, 30, 6)})
	g, m := scripted(t, srv)
	guard := guard(t, enforcergenkit.WithOutputRetries(1))
	resp, err := gk.Generate(context.Background(), g, ai.WithModel(m), ai.WithPrompt("Weather in Paris and Oslo?"),
		ai.WithOutputType([]Weather{}), ai.WithOutputFormat(enforcergenkit.Format), ai.WithMiddleware(guard.Middleware()))
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	var ws []Weather
	if err := resp.Output(&ws); err != nil {
		t.Fatalf("output: %v", err)
	}
	if len(ws) != 2 || ws[1] != (Weather{"Oslo", 3}) {
		t.Errorf("output = %+v", ws)
	}
	rows := guard.Attempts()
	if got, want := outcomes(rows), []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomePassed}; !equal(got, want) {
		t.Fatalf("rows = %v, want %v", got, want)
	}
	if rows[0].Path != "/1/tempC" {
		t.Errorf("row 1 path = %q, want /1/tempC", rows[0].Path)
	}
}

// A streamed typed output (ai.GenerateDataStream) shows the value as it
// forms, read by enforcer's format, and ends with the answer that passed.
func TestAStreamedTypedOutputFormsAsItArrives(t *testing.T) {
	srv := gluetest.NewServer(t,
		gluetest.Reply{Events: []string{gluetest.Content(`{"city":"Par`), gluetest.Content(`is","tempC":21}`), gluetest.Delta(`{}`, "stop")}})
	g, m := scripted(t, srv)
	guard := guard(t)
	var partial []Weather
	var final Weather
	for v, err := range gk.GenerateDataStream[Weather](context.Background(), g, ai.WithModel(m), ai.WithPrompt("Weather in Paris?"),
		ai.WithOutputFormat(enforcergenkit.Format), ai.WithMiddleware(guard.Middleware())) {
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		if v.Done {
			final = v.Output
		} else {
			partial = append(partial, v.Chunk)
		}
	}
	if want := []Weather{{City: "Par"}, {"Paris", 21}}; !equal(partial, want) {
		t.Errorf("partial values = %+v, want %+v", partial, want)
	}
	if final != (Weather{"Paris", 21}) {
		t.Errorf("final = %+v", final)
	}
	if got, want := outcomes(guard.Attempts()), []enforce.Outcome{enforce.OutcomePassed}; !equal(got, want) {
		t.Errorf("rows = %v, want %v", got, want)
	}
}

// Under Genkit's own json format a Guard would be a second judge: the
// call fails before the model is asked, matching ErrTwoJudges.
func TestGenkitsOwnFormatIsRefused(t *testing.T) {
	srv := gluetest.NewServer(t)
	g, m := scripted(t, srv)
	guard := guard(t)
	_, err := gk.Generate(context.Background(), g, ai.WithModel(m), ai.WithPrompt("Weather in Paris?"),
		ai.WithOutputType(Weather{}), ai.WithMiddleware(guard.Middleware()))
	if !errors.Is(err, enforcergenkit.ErrTwoJudges) {
		t.Errorf("error = %v, want ErrTwoJudges", err)
	}
}

// Output instructions of the caller's own, on a model without
// constrained output, replace the format's, and with them the contract
// the model would have been shown: the call fails, matching
// ErrNoContract, before the model is asked.
func TestALostContractIsRefused(t *testing.T) {
	srv := gluetest.NewServer(t)
	g, m := scripted(t, srv)
	guard := guard(t)
	_, err := gk.Generate(context.Background(), g, ai.WithModel(m), ai.WithPrompt("Weather in Paris?"),
		ai.WithOutputType(Weather{}), ai.WithOutputFormat(enforcergenkit.Format), ai.WithOutputInstructions("Answer in JSON."),
		ai.WithMiddleware(guard.Middleware()))
	if !errors.Is(err, enforcergenkit.ErrNoContract) {
		t.Errorf("error = %v, want ErrNoContract", err)
	}
}
