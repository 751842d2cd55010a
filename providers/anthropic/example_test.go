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
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5",
			"content":[{"type":"text","text":"{\"city\":\"Paris\",\"tempC\":18}"}],
			"stop_reason":"end_turn","usage":{"input_tokens":52,"output_tokens":9}}`)
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
