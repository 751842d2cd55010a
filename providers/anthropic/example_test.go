package anthropic_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/enforcer-go/enforcer/agent"
	enforceranthropic "github.com/enforcer-go/enforcer/providers/anthropic"
)

type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
}

func ExampleNew() {
	// A stand-in for the Messages API.
	// The agent streams the reply.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range [][2]string{
			{"message_start", `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"usage":{"input_tokens":52,"output_tokens":1}}}`},
			{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
			{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"{\"city\":\"Paris\","}}`},
			{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\"tempC\":18}"}}`},
			{"content_block_stop", `{"type":"content_block_stop","index":0}`},
			{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}`},
			{"message_stop", `{"type":"message_stop"}`},
		} {
			io.WriteString(w, "event: "+ev[0]+"\ndata: "+ev[1]+"\n\n")
		}
	}))
	defer srv.Close()

	client := anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("unused"))
	m := enforceranthropic.New(client, "claude-sonnet-4-5", enforceranthropic.WithMaxTokens(1024))
	a := agent.New(m, agent.WithOutputRetries(2))

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
	// A stand-in for the Messages API, streaming its reply.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range [][2]string{
			{"message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":52,"output_tokens":1}}}`},
			{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
			{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"{\"city\":"}}`},
			{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\"Paris\"}"}}`},
			{"content_block_stop", `{"type":"content_block_stop","index":0}`},
			{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":6}}`},
			{"message_stop", `{"type":"message_stop"}`},
		} {
			io.WriteString(w, "event: "+ev[0]+"\ndata: "+ev[1]+"\n\n")
		}
	}))
	defer srv.Close()

	client := anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("unused"))
	m := enforceranthropic.New(client, "claude-sonnet-4-5")
	req := agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "Weather in Paris?"}}}

	for c, err := range m.GenerateStream(context.Background(), req) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		if c.Text != "" {
			fmt.Printf("text %s\n", c.Text)
		}
		if c.Stop != "" {
			fmt.Println("stop:", c.Stop)
		}
		if c.Usage != (agent.Usage{}) {
			fmt.Println("tokens:", c.Usage.InputTokens, "in,", c.Usage.OutputTokens, "out")
		}
	}
	// Output:
	// tokens: 52 in, 1 out
	// text {"city":
	// text "Paris"}
	// stop: complete
	// tokens: 52 in, 6 out
}
