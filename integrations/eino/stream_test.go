package eino_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/integrations/eino"
)

func chunks(parts ...string) []*schema.Message {
	out := make([]*schema.Message, len(parts))
	for i, p := range parts {
		out[i] = schema.AssistantMessage(p, nil)
	}
	return out
}

func TestAStreamedAnswerIsCutEarlyAndTheEinoStreamClosed(t *testing.T) {
	doomed := chunks(`{"city": `, `5`, `, "tempC": 21`, `, "extra": 1`, `}`)
	m := newScripted(doomed, chunks(`{"city": "Paris", `, `"tempC": 21}`))
	a := agent.New(eino.NewModel(m), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1))
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
	end := m.streams[0]
	<-end.done
	if !end.closed && !end.cancelled {
		t.Error("the eino stream's writer was neither closed nor cancelled")
	}
	if end.sent >= len(doomed) {
		t.Errorf("the eino model sent all %d chunks; want the stream cut before its end", end.sent)
	}
	ensureCorrected(t, m.inputs[1], `{"city": 5,`, row)
}

func TestStreamedToolCallFragmentsAreJoinedByIndex(t *testing.T) {
	zero, one := 0, 1
	reply := []*schema.Message{
		schema.AssistantMessage("", []schema.ToolCall{{Index: &zero, ID: "a", Function: schema.FunctionCall{Name: "lookup", Arguments: `{"city":`}}}),
		schema.AssistantMessage("", []schema.ToolCall{{Index: &one, ID: "b", Function: schema.FunctionCall{Name: "lookup"}}}),
		schema.AssistantMessage("", []schema.ToolCall{{Index: &zero, Function: schema.FunctionCall{Arguments: `"Paris"}`}}}),
		{Role: schema.Assistant, ResponseMeta: &schema.ResponseMeta{FinishReason: "tool_calls", Usage: &schema.TokenUsage{PromptTokens: 9, CompletionTokens: 4}}},
	}
	m := newScripted(reply)
	var b agent.ReplyBuilder
	for c, err := range eino.NewModel(m).GenerateStream(t.Context(), agent.Request{}) {
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	got := b.Response()
	want := []agent.ToolCall{{ID: "a", Name: "lookup", Arguments: []byte(`{"city":"Paris"}`)}, {ID: "b", Name: "lookup", Arguments: []byte(`{}`)}}
	for i := range want {
		if g, w := got.Message.ToolCalls[i], want[i]; g.ID != w.ID || g.Name != w.Name || string(g.Arguments) != string(w.Arguments) {
			t.Errorf("call %d = %s %s %s, want %s %s %s", i, g.ID, g.Name, g.Arguments, w.ID, w.Name, w.Arguments)
		}
	}
	if got, want := got.Usage, (agent.Usage{InputTokens: 9, OutputTokens: 4}); got != want {
		t.Errorf("usage = %+v, want %+v", got, want)
	}
	if got, want := got.Stop, agent.StopToolUse; got != want {
		t.Errorf("stop = %q, want %q", got, want)
	}
}

func TestCancellationReachesTheEinoStream(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	m := newScripted(chunks(`{"city": `, `"Par`, `is", `, `"tempC": 21}`))
	m.onChunk = func(i int) {
		if i == 0 {
			cancel() // the caller gives up once the first chunk arrived
		}
	}
	_, err := agent.New(eino.NewModel(m), agent.WithOutputSchema(weatherSchema(t))).Run(ctx, "Weather in Paris?")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	end := m.streams[0]
	<-end.done
	if !end.closed && !end.cancelled {
		t.Error("the eino stream's writer went on after the cancellation")
	}
	if end.sent == 4 {
		t.Error("the eino model sent every chunk after the cancellation")
	}
}

func TestABrokenEinoStreamIsAFailedCall(t *testing.T) {
	sr, sw := schema.Pipe[*schema.Message](2)
	sw.Send(schema.AssistantMessage(`{"city"`, nil), nil)
	sw.Send(nil, errors.New("connection reset"))
	sw.Close()
	m := eino.NewModel(streamOnce{sr})
	_, err := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1)).Run(t.Context(), "hi")
	var pe *agent.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v, want *agent.ProviderError", err)
	}
	var oe *enforce.OutputError
	if errors.As(err, &oe) {
		t.Error("a broken stream was judged as a short answer")
	}
}

// streamOnce is an eino model whose one stream is sr.
type streamOnce struct {
	sr *schema.StreamReader[*schema.Message]
}

func (s streamOnce) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	return nil, errors.New("streamOnce streams only")
}

func (s streamOnce) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return s.sr, nil
}

func (s streamOnce) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return s, nil }

// endless is an eino model whose Stream sends msg until its reader
// closes.
type endless struct{ msg *schema.Message }

func (e endless) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	return nil, errors.New("endless: Generate")
}

func (e endless) Stream(ctx context.Context, _ []*schema.Message, _ ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	sr, sw := schema.Pipe[*schema.Message](0)
	go func() {
		defer sw.Close()
		for ctx.Err() == nil && !sw.Send(e.msg, nil) {
		}
	}()
	return sr, nil
}

func (e endless) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return e, nil }

// A model or an eino agent that streams messages adding nothing without
// end is stopped by the agent's bound on such chunks.
func TestEndlessEmptyEinoMessagesAreStopped(t *testing.T) {
	idx := 0
	tests := []struct {
		name  string
		model agent.Model
	}{
		{"a model's empty messages", eino.NewModel(endless{&schema.Message{Role: schema.Assistant}})},
		{"a model's reasoning alone", eino.NewModel(endless{&schema.Message{Role: schema.Assistant, ReasoningContent: "hmm"}})},
		{"an agent's empty messages", eino.AgentStream(endless{&schema.Message{Role: schema.Assistant}}.Stream)},
		{"an agent's tool call fragments", eino.AgentStream(endless{&schema.Message{Role: schema.Assistant,
			ToolCalls: []schema.ToolCall{{Index: &idx, Function: schema.FunctionCall{Arguments: "{}"}}}}}.Stream)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := agent.New(tt.model).Run(t.Context(), "Weather in Paris?")
			if !errors.Is(err, agent.ErrModel) {
				t.Errorf("error = %v, want agent.ErrModel", err)
			}
		})
	}
}
