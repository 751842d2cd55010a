package genkit_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/firebase/genkit/go/ai"
	gk "github.com/firebase/genkit/go/genkit"

	enforcergenkit "github.com/enforcer-go/enforcer/integrations/genkit"
)

// scriptedModel is a Genkit model answering from a script, one answer
// per call, for the examples; a program's is a plugin's (compat_oai,
// googlegenai, …).
func scriptedModel(g *gk.Genkit, answers ...string) ai.Model {
	return gk.DefineModel(g, "scripted/m", &ai.ModelOptions{Supports: &ai.ModelSupports{Multiturn: true, SystemRole: true}},
		func(_ context.Context, _ *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			a := answers[0]
			answers = answers[1:]
			return &ai.ModelResponse{Message: ai.NewModelTextMessage(a), FinishReason: ai.FinishReasonStop,
				Usage: &ai.GenerationUsage{InputTokens: 10, OutputTokens: 5}}, nil
		})
}

func ExampleGuard_Middleware() {
	ctx := context.Background()
	g := gk.Init(ctx)
	enforcergenkit.DefineFormat(g)
	m := scriptedModel(g, "It is 21C in Paris.", `{"city": "Paris", "tempC": 21}`)

	guard, err := enforcergenkit.New(enforcergenkit.WithOutputRetries(2))
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := gk.Generate(ctx, g, ai.WithModel(m), ai.WithPrompt("Weather in Paris?"),
		ai.WithOutputType(Weather{}), ai.WithOutputFormat(enforcergenkit.Format),
		ai.WithMiddleware(guard.Middleware()))
	if err != nil {
		fmt.Println(err)
		return
	}
	var w Weather
	if err := resp.Output(&w); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", w)
	for _, r := range guard.Attempts() {
		fmt.Println(strings.TrimSpace(fmt.Sprintln(r.Attempt, r.Outcome, r.Stage)))
	}
	fmt.Printf("%+v\n", guard.Usage())
	// Output:
	// {City:Paris TempC:21}
	// 1 retried json-parse
	// 2 passed
	// {InputTokens:20 OutputTokens:10 CachedTokens:0 ReasoningTokens:0 Detailed:false}
}

func ExampleDefineFormat() {
	ctx := context.Background()
	g := gk.Init(ctx)
	enforcergenkit.DefineFormat(g)
	m := scriptedModel(g, `[{"city": "Paris", "tempC": 21}, {"city": "Oslo", "tempC": "cold"}]`)

	guard, err := enforcergenkit.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	// With no retries, a failing answer ends the call with the
	// *enforce.OutputError: Genkit's own check is not run beside it.
	_, err = gk.Generate(ctx, g, ai.WithModel(m), ai.WithPrompt("Weather in Paris and Oslo?"),
		ai.WithOutputType([]Weather{}), ai.WithOutputFormat(enforcergenkit.Format),
		ai.WithMiddleware(guard.Middleware()))
	r := guard.Attempts()[0]
	fmt.Println(err != nil, r.Outcome, r.Stage, r.Path)
	// Output:
	// true exhausted schema-validate /1/tempC
}
