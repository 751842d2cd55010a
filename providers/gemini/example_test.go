package gemini_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"google.golang.org/genai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/gemini"
)

type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
}

func ExampleNew() {
	// A stand-in for the Gemini API, streaming its reply as server-sent
	// events: a first answer in prose, then, corrected, the JSON.
	replies := [][]string{
		{`{"candidates":[{"content":{"role":"model","parts":[{"text":"It is sunny in Paris."}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":60,"candidatesTokenCount":7,"thoughtsTokenCount":12,"totalTokenCount":79}}`},
		{
			`{"candidates":[{"content":{"role":"model","parts":[{"text":"{\"city\":\"Paris\","}]},"index":0}]}`,
			`{"candidates":[{"content":{"role":"model","parts":[{"text":"\"tempC\":18}"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":140,"candidatesTokenCount":9,"cachedContentTokenCount":60,"totalTokenCount":149}}`,
		},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, data := range replies[0] {
			io.WriteString(w, "data: "+data+"\r\n\r\n")
		}
		replies = replies[1:]
	}))
	defer srv.Close()

	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      "unused",
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL}, // leave it out for the Gemini API itself
	})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	a := agent.New(gemini.New(client, "gemini-2.5-flash"), agent.WithOutputRetries(2), agent.WithEarlyAbort(false))

	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Printf("%s %.0f°C\n", w.City, w.TempC)
	for _, row := range res.Attempts {
		line := fmt.Sprintf("attempt %d %s", row.Attempt, row.Outcome)
		if row.Stage != "" {
			line += " at " + string(row.Stage)
		}
		fmt.Println(line)
	}
	u := res.Usage
	fmt.Printf("tokens: %d in (%d cached), %d out (%d thinking)\n", u.InputTokens, u.CachedTokens, u.OutputTokens, u.ReasoningTokens)
	// Output:
	// Paris 18°C
	// attempt 1 retried at json-parse
	// attempt 2 passed
	// tokens: 200 in (60 cached), 28 out (12 thinking)
}

func ExampleModel_GenerateStream() {
	// A stand-in for the Gemini API that streams its reply; the chunk with
	// the finishReason ends it.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, data := range []string{
			`{"candidates":[{"content":{"role":"model","parts":[{"text":"{\"city\":"}]},"index":0}],"usageMetadata":{"promptTokenCount":52}}`,
			`{"candidates":[{"content":{"role":"model","parts":[{"text":"\"Paris\"}"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":52,"candidatesTokenCount":6,"thoughtsTokenCount":20}}`,
		} {
			io.WriteString(w, "data: "+data+"\r\n\r\n")
		}
	}))
	defer srv.Close()

	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "unused", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	m := gemini.New(client, "gemini-2.5-flash")
	req := agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "Weather in Paris?"}}}

	for c, err := range m.GenerateStream(context.Background(), req) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		if c.Text != "" {
			fmt.Printf("text %s\n", c.Text)
		}
		if c.Usage != (agent.Usage{}) {
			fmt.Printf("tokens: %d in, %d out (%d thinking)\n", c.Usage.InputTokens, c.Usage.OutputTokens, c.Usage.ReasoningTokens)
		}
		if c.Stop != "" {
			fmt.Println("stop:", c.Stop)
		}
	}
	// Output:
	// tokens: 52 in, 0 out (0 thinking)
	// text {"city":
	// tokens: 52 in, 26 out (20 thinking)
	// text "Paris"}
	// stop: complete
}
