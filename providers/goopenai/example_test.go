package goopenai_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/sashabaranov/go-openai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/providers/goopenai"
	"github.com/enforcer-go/enforcer/providers/native"
)

type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
}

func ExampleNew() {
	// A stand-in for any OpenAI-compatible endpoint: OpenAI itself,
	// Ollama, vLLM, llama.cpp's server. The agent streams the reply.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, data := range []string{
			`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"{\"city\":\"Paris\","}}]}`,
			`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"\"tempC\":18}"},"finish_reason":"stop"}]}`,
			`{"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":52,"completion_tokens":9,"total_tokens":61}}`,
			`[DONE]`,
		} {
			io.WriteString(w, "data: "+data+"\n\n")
		}
	}))
	defer srv.Close()

	config := openai.DefaultConfig("unused")
	config.BaseURL = srv.URL + "/v1" // e.g. "http://localhost:11434/v1" for Ollama
	a := agent.New(goopenai.New(config, "llama3.2"), agent.WithOutputRetries(2))

	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Printf("%s %.0f°C\n", w.City, w.TempC)
	fmt.Println("attempt 1:", res.Attempts[0].Outcome)
	fmt.Println("tokens:", res.Usage.InputTokens, "in,", res.Usage.OutputTokens, "out")
	// Output:
	// Paris 18°C
	// attempt 1: passed
	// tokens: 52 in, 9 out
}

func ExampleWithReasoning() {
	// No request is made: OutputModes only looks at the contract.
	config := openai.DefaultConfig("unused")
	config.BaseURL = "http://localhost:11434/v1"
	s, _ := enforce.SchemaFor[Weather]()
	for _, reasons := range []bool{false, true} {
		opts := []goopenai.Option{goopenai.WithNativeSchema(native.Ollama)}
		if reasons {
			// Ollama leaves a thinking model's answer unconstrained by
			// the response format, so its native mode is not offered.
			opts = append(opts, goopenai.WithReasoning())
		}
		modes := goopenai.New(config, "qwen3:8b", opts...).OutputModes(s.JSON())
		mode, _ := modes.Choice()
		fmt.Println("reasoning:", reasons, "native:", modes.Native, "auto mode:", mode)
	}
	// Output:
	// reasoning: false native: true auto mode: native
	// reasoning: true native: false auto mode: tool
}
