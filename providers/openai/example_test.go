package openai_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/providers/native"
	enforceropenai "github.com/enforcer-go/enforcer/providers/openai"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
}

func ExampleNew() {
	// A stand-in for any OpenAI-compatible endpoint: OpenAI itself,
	// Ollama, vLLM, llama.cpp's server.
	// The agent streams the reply.
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

	client := openai.NewClient(
		option.WithBaseURL(srv.URL+"/v1/"), // e.g. "http://localhost:11434/v1/" for Ollama
		option.WithAPIKey("unused"),
	)
	a := agent.New(enforceropenai.New(client, "llama3.2"), agent.WithOutputRetries(2))

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

func ExampleModel_GenerateStream() {
	// A stand-in endpoint that streams its reply as server-sent events.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, data := range []string{
			`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"{\"city\":"}}]}`,
			`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"\"Paris\"}"}}]}`,
			`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
			`{"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":52,"completion_tokens":6}}`,
			`[DONE]`,
		} {
			io.WriteString(w, "data: "+data+"\n\n")
		}
	}))
	defer srv.Close()

	client := openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("unused"))
	m := enforceropenai.New(client, "gpt-4o-mini")
	req := agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "Weather in Paris?"}}}

	for c, err := range m.GenerateStream(context.Background(), req) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		switch {
		case c.Text != "":
			fmt.Printf("text %s\n", c.Text)
		case c.Stop != "":
			fmt.Println("stop:", c.Stop)
		case c.Usage != (agent.Usage{}):
			fmt.Println("tokens:", c.Usage.InputTokens, "in,", c.Usage.OutputTokens, "out")
		}
	}
	// Output:
	// text {"city":
	// text "Paris"}
	// stop: complete
	// tokens: 52 in, 6 out
}

func ExampleWithReasoning() {
	// No request is made: OutputModes only looks at the contract.
	client := openai.NewClient(option.WithBaseURL("http://localhost:11434/v1/"), option.WithAPIKey("unused"))
	s, _ := enforce.SchemaFor[Weather]()
	for _, reasons := range []bool{false, true} {
		opts := []enforceropenai.Option{enforceropenai.WithNativeSchema(native.Ollama)}
		if reasons {
			// Ollama leaves a thinking model's answer unconstrained by
			// the response format, so its native mode is not offered.
			opts = append(opts, enforceropenai.WithReasoning())
		}
		modes := enforceropenai.New(client, "qwen3:8b", opts...).OutputModes(s.JSON())
		mode, _ := modes.Choice()
		fmt.Println("reasoning:", reasons, "native:", modes.Native, "auto mode:", mode)
	}
	// Output:
	// reasoning: false native: true auto mode: native
	// reasoning: true native: false auto mode: tool
}
