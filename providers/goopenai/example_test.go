package goopenai_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/sashabaranov/go-openai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/goopenai"
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
