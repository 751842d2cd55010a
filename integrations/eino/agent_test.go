package eino_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/integrations/eino"
)

type lookupIn struct {
	City string `json:"city"`
}

// lookupTool is an eino tool, run by eino's own ToolsNode.
func lookupTool(t *testing.T, asked *[]string) tool.BaseTool {
	t.Helper()
	lt, err := utils.InferTool("lookup", "Current weather of a city.", func(_ context.Context, in lookupIn) (string, error) {
		*asked = append(*asked, in.City)
		return "21C", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lt
}

func callLookup(id string) []*schema.Message {
	return []*schema.Message{schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function", Function: schema.FunctionCall{Name: "lookup", Arguments: `{"city":"Paris"}`}}})}
}

// recorder keeps every event a run records.
type recorder struct {
	mu  sync.Mutex
	evs []events.Event
}

func (r *recorder) Append(ev events.Event) (events.Notification, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, ev)
	return events.Notification{}, nil
}

func TestAnEinoReActAgentRunsUnderTheContract(t *testing.T) {
	ctx := t.Context()
	// The eino agent's first run looks the weather up, then answers in a
	// fence; corrected, its second run answers again.
	cm := newScripted(callLookup("c1"), text(fenced), text(valid))
	var asked []string
	ra, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: cm,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: []tool.BaseTool{lookupTool(t, &asked)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	var observed []enforce.Attempt
	a := agent.New(eino.Agent(ra.Generate),
		agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2),
		agent.WithEvents(rec),
		agent.WithObserver(agent.Observer{Attempt: func(_ context.Context, row enforce.Attempt) { observed = append(observed, row) }}))
	w, res, err := agent.RunTyped[Weather](ctx, a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w, (Weather{City: "Paris", TempC: 21}); got != want {
		t.Errorf("answer = %+v, want %+v", got, want)
	}
	if got, want := len(asked), 1; got != want {
		t.Errorf("eino ran the tool %d times, want %d", got, want)
	}
	if got, want := len(res.Attempts), 2; got != want {
		t.Fatalf("rows = %d, want %d: %+v", got, want, res.Attempts)
	}
	retried := res.Attempts[0]
	if got, want := [3]any{retried.Outcome, retried.Stage, retried.Iteration}, [3]any{enforce.OutcomeRetried, enforce.StageJSONParse, 1}; got != want {
		t.Errorf("first row (outcome, stage, iteration) = %v, want %v", got, want)
	}
	if got, want := res.Attempts[1].Outcome, enforce.OutcomePassed; got != want {
		t.Errorf("second row = %q, want %q", got, want)
	}

	t.Run("the correction is appended to the eino agent's history", func(t *testing.T) {
		if got, want := cm.calls(), 3; got != want {
			t.Fatalf("eino model calls = %d, want %d", got, want)
		}
		ensureCorrected(t, cm.inputs[2], fenced, retried)
	})
	t.Run("the schema retry event carries the row's hash", func(t *testing.T) {
		var hashes []string
		for _, ev := range rec.evs {
			if sr, ok := ev.(events.SchemaRetry); ok {
				hashes = append(hashes, sr.CorrectiveMessageHash)
			}
		}
		if len(hashes) != 1 || hashes[0] != retried.CorrectiveMessageHash {
			t.Errorf("schema retry hashes = %q, want [%q]", hashes, retried.CorrectiveMessageHash)
		}
	})
	t.Run("the observer sees each row", func(t *testing.T) {
		if got, want := len(observed), 2; got != want {
			t.Errorf("observed rows = %d, want %d", got, want)
		}
	})
}

func TestAnEinoGraphRunsUnderTheContract(t *testing.T) {
	ctx := t.Context()
	cm := newScripted(text(`{"city": "Paris"}`), text(valid))
	g := compose.NewChain[[]*schema.Message, *schema.Message]().AppendChatModel(cm)
	r, err := g.Compile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a := agent.New(eino.Agent(r.Invoke), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1))
	_, res, err := agent.RunTyped[Weather](ctx, a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := [2]any{res.Attempts[0].Stage, res.Attempts[0].Path}, [2]any{enforce.StageSchemaValidate, "/tempC"}; got != want {
		t.Errorf("first row (stage, path) = %v, want %v", got, want)
	}
	ensureCorrected(t, cm.inputs[1], `{"city": "Paris"}`, res.Attempts[0])
}

func TestAnEinoAgentRefusesTheAgentsOwnTools(t *testing.T) {
	calls := 0
	generate := func(context.Context, []*schema.Message, ...compose.Option) (*schema.Message, error) {
		calls++
		return schema.AssistantMessage(valid, nil), nil
	}
	stream := func(context.Context, []*schema.Message, ...compose.Option) (*schema.StreamReader[*schema.Message], error) {
		calls++
		return schema.StreamReaderFromArray([]*schema.Message{schema.AssistantMessage(valid, nil)}), nil
	}
	echo := agent.NewTool("echo", "", func(_ context.Context, in lookupIn) (string, error) { return in.City, nil })
	for name, m := range map[string]agent.Model{"Agent": eino.Agent(generate), "AgentStream": eino.AgentStream(stream)} {
		t.Run(name, func(t *testing.T) {
			_, err := agent.New(m, agent.WithTools(echo)).Run(t.Context(), "hi")
			if !errors.Is(err, agent.ErrInvalidOption) {
				t.Errorf("error = %v, want agent.ErrInvalidOption", err)
			}
			if calls != 0 {
				t.Errorf("the eino agent ran %d times with tools it cannot run", calls)
			}
		})
	}
}

func TestAFailedEinoRunIsAProviderError(t *testing.T) {
	boom := errors.New("graph failed")
	generate := func(context.Context, []*schema.Message, ...compose.Option) (*schema.Message, error) { return nil, boom }
	_, err := agent.New(eino.Agent(generate)).Run(t.Context(), "hi")
	var pe *agent.ProviderError
	if !errors.As(err, &pe) || pe.System != eino.System || !errors.Is(err, boom) {
		t.Errorf("error = %v, want *agent.ProviderError of system %q wrapping eino's", err, eino.System)
	}
}

func TestAStreamingEinoReActAgentIsCutEarly(t *testing.T) {
	ctx := t.Context()
	doomed := chunks(`{"city": `, `5`, `, "tempC": 21`, `, "extra": 1`, `, "more": 2`, `}`)
	cm := newScripted(callLookup("c1"), doomed, chunks(`{"city": "Paris", `, `"tempC": 21}`))
	var asked []string
	ra, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: cm,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: []tool.BaseTool{lookupTool(t, &asked)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	a := agent.New(eino.AgentStream(ra.Stream), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1))
	w, res, err := agent.RunTyped[Weather](ctx, a, "Weather in Paris?")
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
	if got, want := len(asked), 1; got != want {
		t.Errorf("eino ran the tool %d times, want %d", got, want)
	}
	ensureCorrected(t, cm.inputs[2], `{"city": 5,`, row)
	end := cm.streams[1]
	<-end.done
	if !end.closed && !end.cancelled {
		t.Error("the eino model's stream went on after the cut")
	}
	if end.sent >= len(doomed) {
		t.Errorf("the eino model sent all %d chunks; want the stream cut before its end", end.sent)
	}
}

func TestAStreamingEinoAgentGeneratesTheWholeAnswer(t *testing.T) {
	cm := newScripted(chunks(`{"city": "Paris", `, `"tempC": 21}`))
	r, err := compose.NewChain[[]*schema.Message, *schema.Message]().AppendChatModel(cm).Compile(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := eino.AgentStream(r.Stream).Generate(t.Context(), agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resp.Message.Content, valid; got != want {
		t.Errorf("answer = %q, want %q", got, want)
	}
}

func withUsage(msgs []*schema.Message, in, out int) []*schema.Message {
	last := msgs[len(msgs)-1]
	last.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: in, CompletionTokens: out}}
	return msgs
}

// A ReAct agent's run costs every model call it made, the one that chose
// the tool too, generated or streamed.
func TestAnEinoAgentsUsageCountsEveryModelCall(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		t.Run(fmt.Sprintf("streamed %v", streamed), func(t *testing.T) {
			ctx := t.Context()
			cm := newScripted(withUsage(callLookup("c1"), 5, 2), withUsage(text(valid), 30, 8))
			var asked []string
			ra, err := react.NewAgent(ctx, &react.AgentConfig{
				ToolCallingModel: cm,
				ToolsConfig:      compose.ToolsNodeConfig{Tools: []tool.BaseTool{lookupTool(t, &asked)}},
			})
			if err != nil {
				t.Fatal(err)
			}
			m := eino.Agent(ra.Generate)
			if streamed {
				m = eino.AgentStream(ra.Stream)
			}
			res, err := agent.New(m, agent.WithOutputSchema(weatherSchema(t))).Run(ctx, "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := res.Usage, (agent.Usage{InputTokens: 35, OutputTokens: 10}); got != want {
				t.Errorf("usage = %+v, want %+v: both model calls", got, want)
			}
		})
	}
}
