package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	anthropicsdk "github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	openaisdk "github.com/openai/openai-go/v3"
	openaioption "github.com/openai/openai-go/v3/option"
	"google.golang.org/genai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/anthropic"
	"github.com/enforcer-go/enforcer/providers/gemini"
	"github.com/enforcer-go/enforcer/providers/openai"
)

// providers are the adapters a live eval runs over, each with the
// environment variable its key is read from. The key is never printed.
var providers = map[string]string{
	"openai":    "OPENAI_API_KEY",
	"anthropic": "ANTHROPIC_API_KEY",
	"gemini":    "GEMINI_API_KEY",
}

// liveModel is the adapter of provider for model, over baseURL when it is
// not "" (an OpenAI-compatible server: Ollama, vLLM, llama.cpp).
func liveModel(ctx context.Context, provider, model, baseURL string, getenv func(string) string) (agent.Model, error) {
	env, ok := providers[provider]
	if !ok {
		return nil, fmt.Errorf("eval: -provider %q: want openai, anthropic or gemini", provider)
	}
	key := getenv(env)
	if key == "" && baseURL == "" {
		return nil, fmt.Errorf("eval: -provider %s needs its key in %s (or -base-url for a server that takes none)", provider, env)
	}
	if key == "" {
		key = "unused" // a local server's SDK still wants one
	}
	switch provider {
	case "openai":
		opts := []openaioption.RequestOption{openaioption.WithAPIKey(key)}
		if baseURL != "" {
			opts = append(opts, openaioption.WithBaseURL(baseURL))
		}
		return openai.New(openaisdk.NewClient(opts...), model), nil
	case "anthropic":
		opts := []anthropicoption.RequestOption{anthropicoption.WithAPIKey(key)}
		if baseURL != "" {
			opts = append(opts, anthropicoption.WithBaseURL(baseURL))
		}
		return anthropic.New(anthropicsdk.NewClient(opts...), model), nil
	default:
		cfg := &genai.ClientConfig{APIKey: key, Backend: genai.BackendGeminiAPI}
		if baseURL != "" {
			cfg.HTTPOptions.BaseURL = baseURL
		}
		c, err := genai.NewClient(ctx, cfg)
		if err != nil {
			// The SDK's error may quote its configuration: say only what failed.
			return nil, errors.New("eval: the Gemini client could not be made")
		}
		return gemini.New(c, model), nil
	}
}

// getenv is the environment the live eval reads keys from; tests set
// their own.
var getenv = osGetenv

var osGetenv = os.Getenv

// redact removes key from s, should an error quote it.
func redact(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[key]")
}
