package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
)

// noWait retries a model call at once, so the test never waits out a
// backoff.
var noWait = agent.RetryPolicy{Backoff: func(int, error) time.Duration { return 0 }}

// TestAgainstAnOpenAICompatibleEndpoint runs the example against a
// loopback server speaking the chat completions wire format, which
// rate-limits the first request: three requests reach the server, two of
// them produce a model reply, and the example prints both counts.
func TestAgainstAnOpenAICompatibleEndpoint(t *testing.T) {
	replies := []string{"Sunny, 21 degrees.", `{"city":"Paris","tempC":21,"sky":"clear"}`}
	var mu sync.Mutex
	var models []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string `json:"model"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/chat/completions" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		n := len(models)
		models = append(models, req.Model)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if n == 0 {
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":{"message":"slow down","type":"rate_limit_error"}}`)
			return
		}
		content, _ := json.Marshal(replies[min(n-1, len(replies)-1)])
		fmt.Fprintf(w, `{"id":"c%d","object":"chat.completion","created":0,"model":%q,
			"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%s}}],
			"usage":{"prompt_tokens":50,"completion_tokens":10,"total_tokens":60}}`, n, req.Model, content)
	}))
	defer srv.Close()

	env := map[string]string{"OPENAI_BASE_URL": srv.URL + "/", "ENFORCER_MODEL": "local-model"}
	var out bytes.Buffer
	if err := run(context.Background(), &out, func(k string) string { return env[k] }, noWait); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"model: local-model at " + srv.URL,
		"iterations (model replies): 2\n",
		"requests sent (counted at the model): 3\n",
		"tokens in/out: 100/20\n",
		"accepted on attempt 2: {City:Paris TempC:21 Sky:clear}\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(models) != 3 || models[0] != "local-model" {
		t.Errorf("the server saw models %v, want local-model three times", models)
	}
}

func TestWithoutAnEndpointItSaysWhatToSet(t *testing.T) {
	var out bytes.Buffer
	err := run(context.Background(), &out, func(string) string { return "" }, noWait)
	if !errors.Is(err, errNoEndpoint) {
		t.Errorf("run without OPENAI_BASE_URL = %v, want errNoEndpoint", err)
	}
	if out.Len() != 0 {
		t.Errorf("it printed %q before giving up", out.String())
	}
}
