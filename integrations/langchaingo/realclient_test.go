package langchaingo_test

import (
	"errors"
	"testing"

	"github.com/tmc/langchaingo/llms/openai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/integrations/internal/gluetest"
	"github.com/enforcer-go/enforcer/integrations/langchaingo"
)

// lcOpenAI is langchaingo's llms/openai client pointed at url: the
// client a langchaingo program runs.
func lcOpenAI(t *testing.T, url string) *openai.LLM {
	t.Helper()
	llm, err := openai.New(openai.WithBaseURL(url), openai.WithToken("k"), openai.WithModel("m"))
	if err != nil {
		t.Fatal(err)
	}
	return llm
}

// Through langchaingo's OpenAI client, whose errors are text, a 429 and
// a 503 keep their HTTP status, so agent.WithModelRetry retries them and
// records each.
func TestLangchaingosRateLimitAndOverloadAreRetried(t *testing.T) {
	t.Run("generated", func(t *testing.T) {
		gluetest.RetriesRateLimitAndOverload(t, langchaingo.System,
			func(url string) agent.Model { return agent.ModelFunc(langchaingo.NewModel(lcOpenAI(t, url)).Generate) },
			gluetest.Reply{Body: gluetest.Completion("Sunny.", 10, 3)}, "Sunny.")
	})
	t.Run("streamed", func(t *testing.T) {
		gluetest.RetriesRateLimitAndOverload(t, langchaingo.System,
			func(url string) agent.Model { return langchaingo.NewModel(lcOpenAI(t, url)) },
			gluetest.Reply{Events: []string{gluetest.Content("Sunny."), gluetest.Delta(`{}`, "stop")}}, "Sunny.")
	})
}

// Every endless stream through langchaingo's OpenAI client is stopped
// at a bound: the agent's, or with tools offered, where nothing streams
// before the call returns, MaxToolReplyBytes.
func TestLangchaingosEndlessStreamsAreStopped(t *testing.T) {
	for _, sh := range gluetest.EndlessShapes {
		t.Run(sh.Name, func(t *testing.T) {
			err := gluetest.StopsEndless(t, sh, func(url string) agent.Model { return langchaingo.NewModel(lcOpenAI(t, url)) })
			want := agent.ErrModel
			if sh.Tools && sh.Name == "text without end with tools offered" {
				want = langchaingo.ErrReplyTooLong
			}
			if !errors.Is(err, want) {
				t.Errorf("error = %v, want %v", err, want)
			}
		})
	}
}
