// genkit: a Genkit generate call, kept as it is, held to the output
// contract by enforcer's model middleware and format. The model looks
// the weather up with a Genkit tool, then streams its answer in a
// markdown fence; the answer fails at json-parse (judged whole: a
// request that offers tools may begin a reply with text before its
// calls, so it is not cut), the corrective turn goes to the model inside
// the same call, and the model answers in JSON. No network: the model answers from a script — put any Genkit
// plugin's model in its place.
//
//	go run ./examples/genkit
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	enforcergenkit "github.com/enforcer-go/enforcer/integrations/genkit"
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
	g := genkit.Init(ctx)
	enforcergenkit.DefineFormat(g)
	calls := 0
	m := genkit.DefineModel(g, "scripted/weather", &ai.ModelOptions{Supports: &ai.ModelSupports{Multiturn: true, Tools: true, SystemRole: true}}, script(&calls))
	lookup := genkit.DefineTool(g, "lookup", "Current weather of a city.", func(_ *ai.ToolContext, in struct {
		City string `json:"city"`
	}) (string, error) {
		return "21C and sunny in " + in.City, nil
	})

	guard, err := enforcergenkit.New(enforcergenkit.WithOutputRetries(2))
	if err != nil {
		return err
	}
	resp, err := genkit.Generate(ctx, g, ai.WithModel(m), ai.WithPrompt("Weather in Paris?"), ai.WithTools(lookup),
		ai.WithOutputType(Weather{}), ai.WithOutputFormat(enforcergenkit.Format),
		ai.WithMiddleware(guard.Middleware()),
		ai.WithStreaming(func(_ context.Context, c *ai.ModelResponseChunk) error {
			if c.Role == ai.RoleUser {
				fmt.Fprintf(out, "stream: message %d is a corrective turn\n", c.Index)
			}
			return nil
		}))
	for _, r := range guard.Attempts() {
		b, _ := json.Marshal(r)
		fmt.Fprintf(out, "row: %s\n", b)
	}
	if err != nil {
		return err
	}
	var w Weather
	if err := resp.Output(&w); err != nil {
		return err
	}
	fmt.Fprintf(out, "accepted: %+v\n", w)
	u := guard.Usage()
	fmt.Fprintf(out, "model calls: %d, tokens: %d in, %d out\n", calls, u.InputTokens, u.OutputTokens)
	return nil
}

// script is the model: a tool request, an answer in a fence, then the
// JSON; answers are streamed when the call streams.
func script(calls *int) ai.ModelFunc {
	return func(ctx context.Context, req *ai.ModelRequest, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
		*calls++
		usage := &ai.GenerationUsage{InputTokens: 50 * *calls, OutputTokens: 12}
		switch *calls {
		case 1:
			return &ai.ModelResponse{Message: &ai.Message{Role: ai.RoleModel, Content: []*ai.Part{
				ai.NewToolRequestPart(&ai.ToolRequest{Name: "lookup", Ref: "call_1", Input: map[string]any{"city": "Paris"}})}},
				FinishReason: ai.FinishReasonStop, Usage: usage}, nil
		}
		answer := `{"city": "Paris", "tempC": 21}`
		if *calls == 2 {
			answer = "```json\n" + answer + "\n```"
		}
		if cb != nil {
			if err := cb(ctx, &ai.ModelResponseChunk{Content: []*ai.Part{ai.NewTextPart(answer)}}); err != nil {
				return nil, err
			}
		}
		return &ai.ModelResponse{Message: ai.NewModelTextMessage(answer), FinishReason: ai.FinishReasonStop, Usage: usage}, nil
	}
}
