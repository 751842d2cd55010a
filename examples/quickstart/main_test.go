package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

func noEnv(string) string { return "" }

// TestQuickstart keeps the README's first command from rotting: the run
// fails twice (prose, then a wrong type) and passes on the third attempt.
func TestQuickstart(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, noEnv); err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, want := range []string{
		`model: scripted`,
		`attempt 1/3 · retrying now · answer broke the output contract at json-parse`,
		`attempt 2/3 · retrying now · answer broke the output contract at schema-validate /tempC`,
		`(?m)^\s+1\s+1\s+retried\s+json-parse\s`,
		`(?m)^\s+2\s+2\s+retried\s+schema-validate\s+/tempC\s`,
		`(?m)^\s+3\s+3\s+passed\s`,
		`accepted on attempt 3: \{City:Paris TempC:21 Sky:clear\}`,
	} {
		if !regexp.MustCompile(want).Match(out.Bytes()) {
			t.Errorf("output lacks %s:\n%s", want, out.String())
		}
	}
}

// TestQuickstartAgainstAnOpenAICompatibleEndpoint runs the same program
// with OPENAI_BASE_URL set, against a loopback server speaking the chat
// completions wire format.
func TestQuickstartAgainstAnOpenAICompatibleEndpoint(t *testing.T) {
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
		content, _ := json.Marshal(replies[min(n, len(replies)-1)])
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c%d","object":"chat.completion","created":0,"model":%q,
			"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%s}}],
			"usage":{"prompt_tokens":50,"completion_tokens":10,"total_tokens":60}}`, n, req.Model, content)
	}))
	defer srv.Close()

	env := map[string]string{"OPENAI_BASE_URL": srv.URL + "/", "ENFORCER_MODEL": "local-model"}
	var out bytes.Buffer
	if err := run(context.Background(), &out, func(k string) string { return env[k] }); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"model: local-model at " + srv.URL,
		"accepted on attempt 2: {City:Paris TempC:21 Sky:clear}",
		"model calls: 2, tokens in/out: 100/20",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if len(models) != 2 || models[0] != "local-model" {
		t.Errorf("the server saw models %v, want local-model twice", models)
	}
}
