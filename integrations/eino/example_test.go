package eino_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/integrations/eino"
)

func ExampleNewModel() {
	// chatModel is any eino model.ToolCallingChatModel (eino-ext's
	// OpenAI, Claude, Gemini, Ollama, …); this one answers from a script.
	chatModel := newScripted(text("It is 21C in Paris."), text(`{"city": "Paris", "tempC": 21}`))
	s, _ := enforce.SchemaFor[Weather]()
	a := agent.New(eino.NewModel(chatModel), agent.WithOutputSchema(s), agent.WithOutputRetries(2))
	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", w)
	for _, r := range res.Attempts {
		fmt.Println(strings.TrimSpace(fmt.Sprintln(r.Attempt, r.Outcome, r.Stage)))
	}
	// Output:
	// {City:Paris TempC:21}
	// 1 retried json-parse
	// 2 passed
}

func ExampleAgent() {
	ctx := context.Background()
	// The eino ReAct agent a program already has: its model calls a tool,
	// then answers in a fence, and once corrected, in JSON.
	chatModel := newScripted(
		[]*schema.Message{schema.AssistantMessage("", []schema.ToolCall{{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "lookup", Arguments: `{"city":"Paris"}`}}})},
		text("```json\n{\"city\": \"Paris\", \"tempC\": 21}\n```"),
		text(`{"city": "Paris", "tempC": 21}`),
	)
	lookup, _ := utils.InferTool("lookup", "Current weather of a city.", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return "21C", nil
	})
	ra, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: chatModel,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: []tool.BaseTool{lookup}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	s, _ := enforce.SchemaFor[Weather]()
	a := agent.New(eino.Agent(ra.Generate), agent.WithOutputSchema(s), agent.WithOutputRetries(2))
	w, res, err := agent.RunTyped[Weather](ctx, a, "Weather in Paris?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", w)
	for _, r := range res.Attempts {
		fmt.Println(strings.TrimSpace(fmt.Sprintln(r.Attempt, r.Outcome, r.Stage, r.CorrectiveMessageHash)))
	}
	fmt.Println("eino model calls:", chatModel.calls())
	// Output:
	// {City:Paris TempC:21}
	// 1 retried json-parse fd65d1c0
	// 2 passed
	// eino model calls: 3
}

func ExampleJudgeTools() {
	ctx := context.Background()
	// The eino ReAct agent's model first gives city a number, then
	// corrects the call once told, then answers.
	chatModel := newScripted(
		[]*schema.Message{schema.AssistantMessage("", []schema.ToolCall{{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "lookup", Arguments: `{"city":7}`}}})},
		[]*schema.Message{schema.AssistantMessage("", []schema.ToolCall{{ID: "c2", Type: "function", Function: schema.FunctionCall{Name: "lookup", Arguments: `{"city":"Paris"}`}}})},
		text(`{"city": "Paris", "tempC": 21}`),
	)
	lookup, _ := utils.InferTool("lookup", "Current weather of a city.", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return "21C", nil
	})
	calls, _ := eino.NewToolCalls(0, 3, 0) // no repairs, the run ends at the 3rd failed call of one tool in a row
	tools, err := eino.JudgeTools(ctx, calls, lookup)
	if err != nil {
		fmt.Println(err)
		return
	}
	ra, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: chatModel, ToolsConfig: compose.ToolsNodeConfig{Tools: tools}})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, _ := enforce.SchemaFor[Weather]()
	if _, _, err := agent.RunTyped[Weather](ctx, agent.New(eino.Agent(ra.Generate), agent.WithOutputSchema(s)), "Weather in Paris?"); err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range calls.Rows() {
		fmt.Println(strings.TrimSpace(fmt.Sprintln(r.Tool, r.CallID, r.Outcome, r.Stage, r.Path)))
	}
	// Output:
	// lookup c1 retried schema-validate /city
	// lookup c2 passed
}
