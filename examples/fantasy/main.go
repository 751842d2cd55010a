// fantasy: a Charm fantasy agent, kept as it is, run under the output
// contract. The agent looks the weather up with its own tool, then
// answers in a markdown fence; the corrective turn is appended to the
// agent's conversation, and the agent runs again and answers in JSON.
// No network: the agent's language model answers from a script — put
// any fantasy provider's model in its place.
//
//	go run ./examples/fantasy
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	charm "charm.land/fantasy"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/integrations/fantasy"
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
	lm := &script{replies: []charm.Response{
		toolCall("c1", "lookup", `{"city":"Paris"}`),
		text("```json\n{\"city\": \"Paris\", \"tempC\": 21}\n```"),
		text(`{"city": "Paris", "tempC": 21}`),
	}}
	lookup := charm.NewAgentTool("lookup", "Current weather of a city.", func(_ context.Context, in struct {
		City string `json:"city"`
	}, _ charm.ToolCall) (charm.ToolResponse, error) {
		return charm.NewTextResponse("21C and sunny in " + in.City), nil
	})
	// The fantasy agent as the program already has it.
	fa := charm.NewAgent(lm, charm.WithTools(lookup), charm.WithSystemPrompt("You report the weather."))

	s, err := enforce.SchemaFor[Weather]()
	if err != nil {
		return err
	}
	a := agent.New(fantasy.Agent(fa, charm.AgentCall{}), agent.WithOutputSchema(s), agent.WithOutputRetries(2))
	w, res, err := agent.RunTyped[Weather](ctx, a, "Weather in Paris?")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "accepted: %+v\n", w)
	for _, row := range res.Attempts {
		b, _ := json.Marshal(row)
		fmt.Fprintf(out, "row: %s\n", b)
	}
	fmt.Fprintf(out, "fantasy model calls: %d, usage: %d in, %d out\n", lm.calls, res.Usage.InputTokens, res.Usage.OutputTokens)
	return nil
}

// script is a fantasy.LanguageModel answering from a script, each call
// costing 10 tokens in and 5 out.
type script struct {
	replies []charm.Response
	calls   int
}

func text(s string) charm.Response {
	return charm.Response{Content: charm.ResponseContent{charm.TextContent{Text: s}}, FinishReason: charm.FinishReasonStop}
}

func toolCall(id, name, input string) charm.Response {
	return charm.Response{Content: charm.ResponseContent{charm.ToolCallContent{ToolCallID: id, ToolName: name, Input: input}}, FinishReason: charm.FinishReasonToolCalls}
}

func (m *script) Generate(context.Context, charm.Call) (*charm.Response, error) {
	if m.calls == len(m.replies) {
		return nil, errors.New("script: no reply left")
	}
	r := m.replies[m.calls]
	m.calls++
	r.Usage = charm.Usage{InputTokens: 10, OutputTokens: 5}
	return &r, nil
}

func (m *script) Stream(context.Context, charm.Call) (charm.StreamResponse, error) {
	return nil, errors.New("script: Generate only")
}

func (m *script) GenerateObject(context.Context, charm.ObjectCall) (*charm.ObjectResponse, error) {
	return nil, errors.New("script: Generate only")
}

func (m *script) StreamObject(context.Context, charm.ObjectCall) (charm.ObjectStreamResponse, error) {
	return nil, errors.New("script: Generate only")
}

func (m *script) Provider() string { return "script" }
func (m *script) Model() string    { return "weather" }
