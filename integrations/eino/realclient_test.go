package eino_test

import (
	"context"
	"errors"
	"testing"

	einoopenai "github.com/cloudwego/eino-ext/components/model/openai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/integrations/eino"
	"github.com/enforcer-go/enforcer/integrations/internal/gluetest"
)

// einoExt is eino-ext's OpenAI ChatModel pointed at url: the client an
// eino program runs.
func einoExt(t *testing.T, url string) *einoopenai.ChatModel {
	t.Helper()
	cm, err := einoopenai.NewChatModel(context.Background(), &einoopenai.ChatModelConfig{APIKey: "k", BaseURL: url, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

// Through eino-ext's OpenAI ChatModel, a 429 and a 503 keep their HTTP
// status, so agent.WithModelRetry retries them and records each.
func TestEinoExtsRateLimitAndOverloadAreRetried(t *testing.T) {
	t.Run("generated", func(t *testing.T) {
		gluetest.RetriesRateLimitAndOverload(t, eino.System,
			func(url string) agent.Model { return agent.ModelFunc(eino.NewModel(einoExt(t, url)).Generate) },
			gluetest.Reply{Body: gluetest.Completion("Sunny.", 10, 3)}, "Sunny.")
	})
	t.Run("streamed", func(t *testing.T) {
		gluetest.RetriesRateLimitAndOverload(t, eino.System,
			func(url string) agent.Model { return eino.NewModel(einoExt(t, url)) },
			gluetest.Reply{Events: []string{gluetest.Content("Sunny."), gluetest.Delta(`{}`, "stop")}}, "Sunny.")
	})
}

// Every endless stream eino-ext passes on is stopped at a bound. Empty
// deltas eino-ext itself reads past without passing them on (it joins
// them into the next chunk), so only the run's context bounds those; the
// shapes here are the ones that reach the integration.
func TestEinoExtsEndlessStreamsAreStopped(t *testing.T) {
	for _, sh := range gluetest.EndlessShapes {
		switch sh.Name {
		case "empty deltas", "empty content", "a role again and again", "empty deltas with tools offered":
			continue // eino-ext reads them without end and passes nothing on
		}
		t.Run(sh.Name, func(t *testing.T) {
			err := gluetest.StopsEndless(t, sh, func(url string) agent.Model { return eino.NewModel(einoExt(t, url)) })
			if !errors.Is(err, agent.ErrModel) {
				t.Errorf("error = %v, want agent.ErrModel (a bound of the agent's)", err)
			}
		})
	}
}

// The output kinds through eino-ext's OpenAI ChatModel, streamed: an
// element yielded before its answer failed is voided by a restart, in
// prompted output and with the output tool; a near-miss label is
// corrected, or read with RepairLabel; a text is cut at a forbidden
// substring.
func TestTheOutputKindsThroughEinoExt(t *testing.T) {
	gluetest.OutputKinds(t, func(url string) agent.Model { return eino.NewModel(einoExt(t, url)) })
}
