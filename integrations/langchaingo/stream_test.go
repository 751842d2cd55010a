package langchaingo_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/integrations/langchaingo"
)

func TestAStreamedAnswerIsCutEarlyThroughTheStreamingCallback(t *testing.T) {
	doomed := []string{`{"city": `, `5`, `, "tempC": 21`, `, "extra": 1`, `}`}
	llm := &scriptedLLM{replies: []scriptedReply{
		{chunks: doomed, choice: llms.ContentChoice{StopReason: "stop"}},
		{chunks: []string{`{"city": "Paris", `, `"tempC": 21}`}, choice: llms.ContentChoice{StopReason: "stop"}},
	}}
	a := agent.New(langchaingo.NewModel(llm), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1))
	w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w.City, "Paris"; got != want {
		t.Errorf("city = %q, want %q", got, want)
	}
	row := res.Attempts[0]
	if row.Cut == nil {
		t.Fatalf("first row has no cut: %+v", row)
	}
	if got, want := row.Path, "/city"; got != want {
		t.Errorf("cut row's path = %q, want %q", got, want)
	}
	ensureCorrected(t, llm.inputs[1], `{"city": 5,`, row)

	end := llm.ends[0]
	if end.stoppedBy == nil {
		t.Error("the streaming callback never stopped langchaingo's stream")
	}
	if end.sent >= len(doomed) {
		t.Errorf("the callback took all %d chunks; want the stream stopped before its end", end.sent)
	}
}

func TestCancellationReachesLangchaingosStream(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	llm := &scriptedLLM{
		replies: []scriptedReply{{chunks: []string{`{"city": `, `"Par`, `is", `, `"tempC": 21}`}}},
		onChunk: func(i int) {
			if i == 0 {
				cancel() // the caller gives up once the first chunk arrived
			}
		},
		done: make(chan struct{}),
	}
	_, err := agent.New(langchaingo.NewModel(llm), agent.WithOutputSchema(weatherSchema(t))).Run(ctx, "Weather in Paris?")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	<-llm.done
	end := llm.ends[0]
	if !errors.Is(end.stoppedBy, context.Canceled) {
		t.Errorf("the callback stopped the stream with %v, want context.Canceled", end.stoppedBy)
	}
	if got, want := end.sent, 1; got != want {
		t.Errorf("chunks taken = %d, want %d", got, want)
	}
}

// collect puts a stream's chunks together as the agent does, keeping
// the usage as the model reported it (agent.ReplyBuilder takes a negative
// count as unknown), so that FuzzReply can hold it to Generate's.
func collect(t *testing.T, m *langchaingo.Model, req agent.Request) (agent.Response, error) {
	t.Helper()
	r := agent.Response{Message: agent.Message{Role: agent.RoleAssistant}}
	for c, err := range m.GenerateStream(t.Context(), req) {
		if err != nil {
			return r, err
		}
		r.Message.Content += c.Text
		if d := c.Call; d != nil {
			for len(r.Message.ToolCalls) <= d.Index {
				r.Message.ToolCalls = append(r.Message.ToolCalls, agent.ToolCall{})
			}
			tc := &r.Message.ToolCalls[d.Index]
			if d.ID != "" {
				tc.ID, tc.Name = d.ID, d.Name
			}
			tc.Arguments = append(tc.Arguments, d.Arguments...)
		}
		if c.Usage != (agent.Usage{}) {
			r.Usage = c.Usage
		}
		if c.Stop != "" {
			r.Stop = c.Stop
		}
	}
	return r, nil
}

func TestWithToolsTheCallbacksBytesAreNotTakenForText(t *testing.T) {
	llm := &scriptedLLM{replies: []scriptedReply{{
		chunks: []string{`[{"id":"c1","type":"function","function":{"name":"lookup"}}]`, `[{"function":{"arguments":"{}"}}]`},
		unsaid: true,
		choice: llms.ContentChoice{StopReason: "tool_calls", ToolCalls: []llms.ToolCall{{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: `{}`}}},
			GenerationInfo: map[string]any{"PromptTokens": 5, "CompletionTokens": 2}},
	}}}
	got, err := collect(t, langchaingo.NewModel(llm), agent.Request{Tools: []agent.ToolSpec{{Name: "lookup"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Message.Content != "" {
		t.Errorf("text = %q, want none: the callback's bytes were tool call fragments", got.Message.Content)
	}
	if len(got.Message.ToolCalls) != 1 || got.Message.ToolCalls[0].Name != "lookup" || string(got.Message.ToolCalls[0].Arguments) != "{}" {
		t.Errorf("tool calls = %+v, want one lookup with {}", got.Message.ToolCalls)
	}
	if got, want := [2]any{got.Usage, got.Stop}, [2]any{agent.Usage{InputTokens: 5, OutputTokens: 2}, agent.StopToolUse}; got != want {
		t.Errorf("(usage, stop) = %v, want %v", got, want)
	}
}

func TestAReplyThatDoesNotBeginWithWhatStreamedIsMalformed(t *testing.T) {
	llm := &scriptedLLM{replies: []scriptedReply{{chunks: []string{"abc"}, unsaid: true, choice: llms.ContentChoice{Content: "xyz"}}}}
	_, err := collect(t, langchaingo.NewModel(llm), agent.Request{})
	var pe *agent.ProviderError
	if !errors.As(err, &pe) || pe.System != langchaingo.System {
		t.Errorf("error = %v, want *agent.ProviderError of system %q", err, langchaingo.System)
	}
}

func TestTextAProviderDidNotStreamArrivesAtTheEnd(t *testing.T) {
	llm := &scriptedLLM{replies: []scriptedReply{{chunks: []string{"Hel"}, choice: llms.ContentChoice{StopReason: "stop"}}}}
	got, err := collect(t, langchaingo.NewModel(&tail{llm, "lo"}), agent.Request{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := got.Message.Content, "Hello"; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
}

// tail is a langchaingo model whose reply says more than it streamed.
type tail struct {
	*scriptedLLM
	more string
}

func (m *tail) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	cr, err := m.scriptedLLM.GenerateContent(ctx, msgs, opts...)
	if err == nil {
		cr.Choices[0].Content += m.more
	}
	return cr, err
}

// A langchaingo model that does not stream (its callback is never called)
// gives its whole reply at the end, with why it ended: the agent judges
// the answer whole, and no row says it was cut after its first bytes. (A
// reply that says no stop reason, as llms/fake's, cannot be told from one
// still coming, and is cut as any streamed answer is.)
func TestAReplyGivenWholeAtTheEndIsJudgedWholeNotCut(t *testing.T) {
	llm := &unstreamed{replies: []string{`{"city": "Paris", "tempC": "21"}`, valid}}
	a := agent.New(langchaingo.NewModel(llm), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1))
	_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Attempts[0]; r.Cut != nil || r.Path != "/tempC" {
		t.Errorf("row 1 = %+v, want not cut, failed at /tempC", r)
	}
}

// unstreamed is a langchaingo model that never calls the streaming
// callback: each reply is given whole, with its stop reason.
type unstreamed struct {
	llms.Model
	replies []string
}

func (m *unstreamed) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	r := m.replies[0]
	m.replies = m.replies[1:]
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: r, StopReason: "stop"}}}, nil
}
