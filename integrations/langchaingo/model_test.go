package langchaingo_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/fake"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/fnv"
	"github.com/enforcer-go/enforcer/integrations/langchaingo"
)

type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
}

const (
	fenced = "```json\n{\"city\": \"Paris\", \"tempC\": 21}\n```"
	valid  = `{"city": "Paris", "tempC": 21}`
)

func weatherSchema(t *testing.T) *enforce.Schema {
	t.Helper()
	s, err := enforce.SchemaFor[Weather]()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stillClock stops time for both runs compared, so their rows carry no
// latency and can be compared whole.
var stillClock = agent.WithClock(func() time.Time { return time.Unix(0, 0) })

// recorded is a langchaingo model that keeps what it was asked.
type recorded struct {
	llms.Model
	mu     sync.Mutex
	inputs [][]llms.MessageContent
	opts   []llms.CallOptions
}

func (r *recorded) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	r.mu.Lock()
	r.inputs = append(r.inputs, msgs)
	r.opts = append(r.opts, o)
	r.mu.Unlock()
	return r.Model.GenerateContent(ctx, msgs, opts...)
}

func textOf(t *testing.T, mc llms.MessageContent) string {
	t.Helper()
	if len(mc.Parts) != 1 {
		t.Fatalf("message has %d parts, want 1", len(mc.Parts))
	}
	tc, ok := mc.Parts[0].(llms.TextContent)
	if !ok {
		t.Fatalf("part is %T, want llms.TextContent", mc.Parts[0])
	}
	return tc.Text
}

func TestAFailingAnswerIsCorrectedThroughLangchaingosFakeLLM(t *testing.T) {
	tests := []struct {
		name string
		// model hides GenerateStream when not streamed; own is the
		// agent's own scripted model the rows are compared with.
		model  func(*langchaingo.Model) agent.Model
		own    func(t *testing.T) agent.Model
		failed string // the failed answer as the history keeps it
	}{
		{
			"a generated answer, corrected whole",
			func(m *langchaingo.Model) agent.Model { return agent.ModelFunc(m.Generate) },
			func(t *testing.T) agent.Model {
				return agenttest.NewModel(t, agenttest.Reply(fenced), agenttest.Reply(valid))
			},
			fenced,
		},
		{
			// fake.LLM does not stream: the reply arrives whole when the
			// call returns, and is cut there, at its first byte.
			"a streamed answer, cut at its first byte",
			func(m *langchaingo.Model) agent.Model { return m },
			func(t *testing.T) agent.Model {
				return agenttest.NewStreamingModel(t, agenttest.Reply(fenced), agenttest.Reply(valid))
			},
			"`",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			llm := &recorded{Model: fake.NewFakeLLM([]string{fenced, valid})}
			a := agent.New(tt.model(langchaingo.NewModel(llm)), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2), stillClock)
			w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := w, (Weather{City: "Paris", TempC: 21}); got != want {
				t.Errorf("answer = %+v, want %+v", got, want)
			}
			if got, want := len(res.Attempts), 2; got != want {
				t.Fatalf("rows = %d, want %d", got, want)
			}
			ensureCorrected(t, llm.inputs[1], tt.failed, res.Attempts[0])

			own := agent.New(tt.own(t), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2), stillClock)
			_, want, err := agent.RunTyped[Weather](t.Context(), own, "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := res.Attempts, want.Attempts; !reflect.DeepEqual(got, want) {
				t.Errorf("rows through langchaingo = %+v, want the agent's own %+v", got, want)
			}
		})
	}
}

// ensureCorrected checks the messages langchaingo was sent for the
// corrected call: the failed answer as an AI message, then the corrective
// turn as a human message whose hash is the retried row's.
func ensureCorrected(t *testing.T, input []llms.MessageContent, failed string, row enforce.Attempt) {
	t.Helper()
	n := len(input)
	if got, want := [2]llms.ChatMessageType{input[n-2].Role, input[n-1].Role}, [2]llms.ChatMessageType{llms.ChatMessageTypeAI, llms.ChatMessageTypeHuman}; got != want {
		t.Errorf("roles of the last two messages = %v, want %v", got, want)
	}
	if got, want := textOf(t, input[n-2]), failed; got != want {
		t.Errorf("the failed answer in the history = %q, want %q", got, want)
	}
	if got, want := fnv.Hex32a(textOf(t, input[n-1])), row.CorrectiveMessageHash; got != want {
		t.Errorf("hash of the correction langchaingo saw = %s, want the row's %s", got, want)
	}
}

// scriptedLLM is a langchaingo llms.Model answering from a script, with
// tool calls and streaming, which fake.LLM does not have: each reply
// streams its chunks through the call's streaming callback, stopping at
// the first error the callback returns, as langchaingo's providers do.
type scriptedLLM struct {
	mu      sync.Mutex
	replies []scriptedReply
	inputs  [][]llms.MessageContent
	opts    []llms.CallOptions
	// onChunk, when set, is called after chunk i was streamed.
	onChunk func(i int)
	// done is closed as each call returns, when set.
	done chan struct{}
	// ends says how each call's stream ended.
	ends []*callEnd
}

// callEnd is how one call's stream ended: the chunks the callback took,
// and the error it returned to stop the stream, if it did.
type callEnd struct {
	sent      int
	stoppedBy error
}

type scriptedReply struct {
	chunks []string // streamed in this order; the choice's content is their concatenation
	// unsaid: the chunks are streamed but are not the choice's content,
	// as OpenAI's tool call fragments reach the callback as JSON.
	unsaid bool
	choice llms.ContentChoice
	err    error
}

func (m *scriptedLLM) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	m.mu.Lock()
	m.inputs = append(m.inputs, msgs)
	m.opts = append(m.opts, o)
	if len(m.replies) == 0 {
		m.mu.Unlock()
		return nil, fmt.Errorf("scripted: no reply left for call %d", len(m.inputs))
	}
	r := m.replies[0]
	m.replies = m.replies[1:]
	end := &callEnd{}
	m.ends = append(m.ends, end)
	done := m.done
	m.mu.Unlock()
	if done != nil {
		defer close(done)
	}
	if r.err != nil {
		return nil, r.err
	}
	choice := r.choice
	for i, c := range r.chunks {
		if !r.unsaid {
			choice.Content += c
		}
		if o.StreamingFunc == nil {
			continue
		}
		// Like a provider reading its body, the script goes on until the
		// callback says stop, whatever ctx says: what stops it is the
		// callback's error.
		if err := o.StreamingFunc(ctx, []byte(c)); err != nil {
			end.stoppedBy = err
			return nil, fmt.Errorf("streaming func returned an error: %w", err)
		}
		end.sent++
		if m.onChunk != nil {
			m.onChunk(i)
		}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{&choice}}, nil
}

func (m *scriptedLLM) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

func TestAToolCallMakesARoundTripThroughLangchaingo(t *testing.T) {
	llm := &scriptedLLM{replies: []scriptedReply{
		{choice: llms.ContentChoice{StopReason: "tool_calls", ToolCalls: []llms.ToolCall{{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: `{"city":"Paris"}`}}}}},
		{chunks: []string{valid}, choice: llms.ContentChoice{StopReason: "stop"}},
	}}
	type In struct {
		City string `json:"city"`
	}
	var asked []string
	lookup := agent.NewTool("lookup", "Current weather of a city.", func(_ context.Context, in In) (string, error) {
		asked = append(asked, in.City)
		return "21C", nil
	})
	a := agent.New(langchaingo.NewModel(llm), agent.WithTools(lookup), agent.WithOutputSchema(weatherSchema(t)))
	if _, _, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?"); err != nil {
		t.Fatal(err)
	}
	if got, want := asked, []string{"Paris"}; !reflect.DeepEqual(got, want) {
		t.Errorf("the tool was asked %q, want %q", got, want)
	}
	tools := llm.opts[0].Tools
	if len(tools) != 1 || tools[0].Function.Name != "lookup" {
		t.Fatalf("tools sent = %+v, want lookup", tools)
	}
	params, ok := tools[0].Function.Parameters.(map[string]any)
	if !ok {
		t.Fatalf("parameters are %T, want a decoded object", tools[0].Function.Parameters)
	}
	// agent.NewTool's root "$ref" is inlined, as the adapters send it.
	if got, want := [2]any{params["type"], params["$ref"]}, [2]any{"object", nil}; got != want {
		t.Errorf("parameters (type, $ref) = %v, want %v", got, want)
	}
	if props, _ := params["properties"].(map[string]any); props["city"] == nil {
		t.Errorf("the parameters lost their property city: %v", params)
	}
	second := llm.inputs[1]
	call, ok := second[len(second)-2].Parts[0].(llms.ToolCall)
	if !ok || call.ID != "c1" || call.FunctionCall.Arguments != `{"city":"Paris"}` {
		t.Errorf("the call in the history = %+v", second[len(second)-2].Parts[0])
	}
	if got, want := second[len(second)-1], (llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "c1", Name: "lookup", Content: "21C"}}}); !reflect.DeepEqual(got, want) {
		t.Errorf("tool response = %+v, want %+v", got, want)
	}
}

func TestTheOutputToolIsRequiredWithLangchaingosToolChoice(t *testing.T) {
	llm := &scriptedLLM{replies: []scriptedReply{
		{choice: llms.ContentChoice{ToolCalls: []llms.ToolCall{{ID: "c1", FunctionCall: &llms.FunctionCall{Name: "final_answer", Arguments: valid}}}}},
	}}
	a := agent.New(langchaingo.NewModel(llm), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputTool("final_answer"))
	if _, _, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?"); err != nil {
		t.Fatal(err)
	}
	if got, want := llm.opts[0].ToolChoice, any("required"); got != want {
		t.Errorf("tool choice = %v, want %v", got, want)
	}
}

func TestTheReplyIsMapped(t *testing.T) {
	tests := []struct {
		name    string
		choices []*llms.ContentChoice
		want    agent.Response
	}{
		{
			"OpenAI's counts and stop",
			[]*llms.ContentChoice{{Content: "hi", StopReason: "stop", GenerationInfo: map[string]any{"PromptTokens": 7, "CompletionTokens": 3}}},
			agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: "hi"}, Usage: agent.Usage{InputTokens: 7, OutputTokens: 3}, Stop: agent.StopComplete, StopRaw: "stop"},
		},
		{
			"Anthropic's blocks as choices of their own",
			[]*llms.ContentChoice{
				{Content: "Looking.", StopReason: "tool_use", GenerationInfo: map[string]any{"InputTokens": 11, "OutputTokens": 5}},
				{StopReason: "tool_use", ToolCalls: []llms.ToolCall{{ID: "t1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "f", Arguments: `{"a":1}`}}}, GenerationInfo: map[string]any{"InputTokens": 11, "OutputTokens": 5}},
			},
			agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: "Looking.", ToolCalls: []agent.ToolCall{{ID: "t1", Name: "f", Arguments: []byte(`{"a":1}`)}}}, Usage: agent.Usage{InputTokens: 11, OutputTokens: 5}, Stop: agent.StopToolUse, StopRaw: "tool_use"},
		},
		{
			"a cut reply",
			[]*llms.ContentChoice{{Content: `{"ci`, StopReason: "max_tokens", GenerationInfo: map[string]any{"input_tokens": int64(4), "output_tokens": float64(2)}}},
			agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: `{"ci`}, Usage: agent.Usage{InputTokens: 4, OutputTokens: 2}, Stop: agent.StopLength, StopRaw: "max_tokens"},
		},
		{
			"a filtered reply",
			[]*llms.ContentChoice{{StopReason: "content_filter"}},
			agent.Response{Message: agent.Message{Role: agent.RoleAssistant}, Stop: agent.StopContentFilter, StopRaw: "content_filter"},
		},
		{
			"a legacy function call without an id",
			[]*llms.ContentChoice{{FuncCall: &llms.FunctionCall{Name: "f"}}},
			agent.Response{Message: agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "call_0", Name: "f", Arguments: []byte(`{}`)}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			llm := &fixed{resp: &llms.ContentResponse{Choices: tt.choices}}
			got, err := langchaingo.NewModel(llm).Generate(t.Context(), agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("response = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// fixed is a langchaingo model that gives resp, or err, to every call.
type fixed struct {
	llms.Model
	resp *llms.ContentResponse
	err  error
}

func (f *fixed) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return f.resp, f.err
}

func TestAMalformedReplyIsAFailedCall(t *testing.T) {
	tests := []struct {
		name string
		resp *llms.ContentResponse
	}{
		{"no response", nil},
		{"no choices", &llms.ContentResponse{}},
		{"a tool call of another type", &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: []llms.ToolCall{{Type: "retrieval", FunctionCall: &llms.FunctionCall{Name: "f"}}}}}}},
		{"a tool call without a function", &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: []llms.ToolCall{{ID: "x"}}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := langchaingo.NewModel(&fixed{resp: tt.resp}).Generate(t.Context(), agent.Request{})
			var pe *agent.ProviderError
			if !errors.As(err, &pe) || pe.System != langchaingo.System {
				t.Errorf("error = %v, want *agent.ProviderError of system %q", err, langchaingo.System)
			}
		})
	}
}

func TestAFailedLangchaingoCallIsAProviderError(t *testing.T) {
	boom := errors.New("boom")
	for _, streamed := range []bool{false, true} {
		t.Run(fmt.Sprintf("streamed %v", streamed), func(t *testing.T) {
			m := langchaingo.NewModel(&fixed{err: boom})
			var model agent.Model = m
			if !streamed {
				model = agent.ModelFunc(m.Generate)
			}
			_, err := agent.New(model).Run(t.Context(), "hi")
			var pe *agent.ProviderError
			if !errors.As(err, &pe) || !errors.Is(err, agent.ErrModel) || !errors.Is(err, boom) {
				t.Fatalf("error = %v, want *agent.ProviderError wrapping langchaingo's", err)
			}
			if got, want := [2]any{pe.System, pe.Kind}, [2]any{langchaingo.System, events.KindUnknown}; got != want {
				t.Errorf("(system, kind) = %v, want %v", got, want)
			}
		})
	}
}

func TestANilLangchaingoModelIsAnInvalidOption(t *testing.T) {
	_, err := agent.New(langchaingo.NewModel(nil)).Run(t.Context(), "hi")
	if !errors.Is(err, agent.ErrInvalidOption) {
		t.Errorf("error = %v, want agent.ErrInvalidOption", err)
	}
}
