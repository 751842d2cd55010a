// eino: an eino ReAct agent, kept as it is, run under the output
// contract. The agent looks the weather up with its own tool, then
// answers in a markdown fence; the answer is cut at its first byte, the
// corrective turn is appended to the agent's conversation, and the agent
// runs again and answers in JSON. No network: the agent's chat model
// answers from a script — put any eino-ext model in its place.
//
//	go run ./examples/eino
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/integrations/eino"
)

// Weather is the output contract.
type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	// The eino side: a ReAct agent over a chat model, with one tool.
	lookup, err := utils.InferTool("lookup", "Current weather of a city.", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return in.City + ": 21C, clear", nil
	})
	if err != nil {
		return err
	}
	chatModel := &scriptedModel{replies: [][]*schema.Message{
		{schema.AssistantMessage("", []schema.ToolCall{{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "lookup", Arguments: `{"city":"Paris"}`}}})},
		{schema.AssistantMessage("```json\n", nil), schema.AssistantMessage(`{"city": "Paris", "tempC": 21}`, nil), schema.AssistantMessage("\n```", nil)},
		{schema.AssistantMessage(`{"city": "Paris", `, nil), schema.AssistantMessage(`"tempC": 21}`, nil)},
	}}
	ra, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: chatModel,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: []tool.BaseTool{lookup}},
	})
	if err != nil {
		return err
	}

	// The enforcer side: the contract around the agent's Stream.
	s, err := enforce.SchemaFor[Weather]()
	if err != nil {
		return err
	}
	a := agent.New(eino.AgentStream(ra.Stream), agent.WithOutputSchema(s), agent.WithOutputRetries(2))
	w, res, err := agent.RunTyped[Weather](ctx, a, "Weather in Paris?")
	if err != nil {
		return err
	}

	fmt.Fprintf(out, "accepted: %+v\n", w)
	for _, r := range res.Attempts {
		r.LatencyMs = 0 // the clock's, not the script's
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "row: %s\n", b)
	}
	fmt.Fprintf(out, "eino model calls: %d (tool call, fenced answer, corrected answer)\n", chatModel.calls)
	return nil
}

// scriptedModel is an eino model.ToolCallingChatModel answering from a
// script, chunk by chunk when streamed: what an eino-ext model does over
// the network.
type scriptedModel struct {
	replies [][]*schema.Message
	calls   int
}

func (m *scriptedModel) next() ([]*schema.Message, error) {
	if m.calls >= len(m.replies) {
		return nil, fmt.Errorf("scripted model: no reply left for call %d", m.calls+1)
	}
	m.calls++
	return m.replies[m.calls-1], nil
}

func (m *scriptedModel) Generate(_ context.Context, _ []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	reply, err := m.next()
	if err != nil {
		return nil, err
	}
	return schema.ConcatMessages(reply)
}

func (m *scriptedModel) Stream(ctx context.Context, _ []*schema.Message, _ ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	reply, err := m.next()
	if err != nil {
		return nil, err
	}
	sr, sw := schema.Pipe[*schema.Message](0)
	go func() {
		defer sw.Close()
		for _, c := range reply {
			if ctx.Err() != nil || sw.Send(c, nil) {
				return // the run stopped reading: stop writing
			}
		}
	}()
	return sr, nil
}

func (m *scriptedModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return m, nil
}
