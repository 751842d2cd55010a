//go:build !enforcer_workspace

package fantasy_test

import (
	"context"
	"errors"
	"testing"

	charm "charm.land/fantasy"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/integrations/fantasy"
	"github.com/enforcer-go/enforcer/integrations/internal/gluetest"
)

// A fantasy agent over fantasy's OpenAI client, with a tool of its own:
// its failing answer is corrected in a second run, and the run's usage
// is every step's of both runs.
func TestAFantasyAgentsAnswerIsCorrectedThroughItsOpenAIClient(t *testing.T) {
	call := `{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":"Let me look.",` +
		`"tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\"city\":\"Paris\"}"}}]}}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`
	srv := gluetest.NewServer(t,
		gluetest.Reply{Body: call},
		gluetest.Reply{Body: gluetest.Completion(fenced, 11, 6)},
		gluetest.Reply{Body: gluetest.Completion(valid, 20, 5)})
	var asked []string
	lookup := charm.NewAgentTool("lookup", "Current weather of a city.", func(_ context.Context, in struct {
		City string `json:"city"`
	}, _ charm.ToolCall) (charm.ToolResponse, error) {
		asked = append(asked, in.City)
		return charm.NewTextResponse("21C"), nil
	})
	fa := charm.NewAgent(fantasyOpenAI(t, srv.URL, ""), charm.WithTools(lookup))
	a := agent.New(fantasy.Agent(fa, charm.AgentCall{}), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1))
	w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if w.City != "Paris" || len(asked) != 1 {
		t.Errorf("answer %+v, tool asked %q", w, asked)
	}
	if len(res.Attempts) != 2 || res.Attempts[0].Stage != enforce.StageJSONParse {
		t.Fatalf("rows = %+v, want a json-parse failure, then a pass", res.Attempts)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the server saw %d requests, want 3", len(reqs))
	}
	// The second run is sent the first's answer, not its tool calls (they
	// stayed inside fantasy), and the correction.
	wantCorrected(t, reqs[2], fenced, res.Attempts[0])
	if got, want := res.Usage, (agent.Usage{InputTokens: 36, OutputTokens: 13}); got != want {
		t.Errorf("usage = %+v, want every step's %+v", got, want)
	}
}

func TestAFantasyAgentKeepsTheStatusOfAFailedStep(t *testing.T) {
	srv := gluetest.NewServer(t,
		gluetest.Reply{Status: 429, Header: map[string]string{"Retry-After": "2"}, Body: gluetest.Error("rate_limit_exceeded", "slow down")})
	none := 0
	fa := charm.NewAgent(fantasyOpenAI(t, srv.URL, ""))
	_, err := agent.New(fantasy.Agent(fa, charm.AgentCall{MaxRetries: &none})).Run(t.Context(), "hi")
	var pe *agent.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v, want *agent.ProviderError", err)
	}
	if pe.Kind != events.KindRateLimit || pe.HTTPStatus != 429 || pe.RetryAfter.Seconds() != 2 {
		t.Errorf("(kind, status, retry after) = (%s, %d, %s), want (rate_limit, 429, 2s)", pe.Kind, pe.HTTPStatus, pe.RetryAfter)
	}
}

func TestAFantasyAgentRefusesTheAgentsOwnTools(t *testing.T) {
	tool := agent.NewTool("x", "", func(context.Context, struct{}) (string, error) { return "", nil })
	fa := charm.NewAgent(fantasyOpenAI(t, "http://127.0.0.1:1", ""))
	if _, err := agent.New(fantasy.Agent(fa, charm.AgentCall{}), agent.WithTools(tool)).Run(t.Context(), "hi"); !errors.Is(err, agent.ErrInvalidOption) {
		t.Errorf("error = %v, want agent.ErrInvalidOption", err)
	}
	if _, err := agent.New(fantasy.Agent(nil, charm.AgentCall{})).Run(t.Context(), "hi"); !errors.Is(err, agent.ErrInvalidOption) {
		t.Errorf("Agent(nil): error = %v, want agent.ErrInvalidOption", err)
	}
}
