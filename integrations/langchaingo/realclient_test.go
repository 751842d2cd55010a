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

const usageChunk = `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[],"usage":{"prompt_tokens":30,"completion_tokens":8,"total_tokens":38}}`

// With the output tool forced, langchaingo gives the reply whole when the
// call returns: an answer the agent judges doomed in the call's
// arguments still keeps the reply's cost.
func TestAnOutputToolAnswerKeepsItsCostThroughLangchaingo(t *testing.T) {
	srv := gluetest.NewServer(t,
		gluetest.Reply{Events: []string{gluetest.CallDelta("c1", "answer", `{"city":5,"tempC":21}`), gluetest.Delta(`{}`, "tool_calls"), usageChunk}},
		gluetest.Reply{Events: []string{gluetest.CallDelta("c2", "answer", `{"city":"Paris","tempC":21}`), gluetest.Delta(`{}`, "tool_calls"), usageChunk}})
	a := agent.New(langchaingo.NewModel(lcOpenAI(t, srv.URL)),
		agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputTool("answer"), agent.WithOutputRetries(1))
	res, err := a.Run(t.Context(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Usage.InputTokens, 60; got != want {
		t.Errorf("usage input tokens = %d, want %d: both calls' cost", got, want)
	}
	if len(res.Attempts) != 2 {
		t.Fatalf("rows = %+v, want 2", res.Attempts)
	}
	if c := res.Attempts[0].Cut; c != nil && c.OutputTokens != 8 {
		t.Errorf("row 1 cut = %+v, want the reply's 8 output tokens", c)
	}
}

// The output kinds through langchaingo's OpenAI client: an element
// yielded before its answer failed is voided by a restart, in prompted
// output and with the output tool; a near-miss label is corrected, or
// read with RepairLabel; a text is cut at a forbidden substring.
func TestTheOutputKindsThroughLangchaingosOpenAIClient(t *testing.T) {
	gluetest.OutputKinds(t, func(url string) agent.Model { return langchaingo.NewModel(lcOpenAI(t, url)) })
}
