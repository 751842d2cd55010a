//go:build !enforcer_workspace

package fantasy_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	charm "charm.land/fantasy"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/integrations/fantasy"
	"github.com/enforcer-go/enforcer/integrations/internal/gluetest"
)

// toolCallReply is a whole completion calling lookup with args.
func toolCallReply(id, args string) gluetest.Reply {
	return gluetest.Reply{Body: fmt.Sprintf(`{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,`+
		`"tool_calls":[{"id":%q,"type":"function","function":{"name":"lookup","arguments":%q}}]}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`, id, args)}
}

func lookupTool(asked *[]string) charm.AgentTool {
	return charm.NewAgentTool("lookup", "Current weather of a city.", func(_ context.Context, in struct {
		City string `json:"city"`
	}, _ charm.ToolCall) (charm.ToolResponse, error) {
		*asked = append(*asked, in.City)
		return charm.NewTextResponse("21C"), nil
	})
}

// A fantasy agent's own tool, judged: a call whose input breaks the
// tool's parameters never runs, the model is told why in the tool's
// output, and its next call does run.
func TestAFantasyToolsFailedCallNeverRunsAndIsCorrected(t *testing.T) {
	srv := gluetest.NewServer(t,
		toolCallReply("call_1", `{"city": 5}`),
		toolCallReply("call_2", `{"city": "Paris"}`),
		gluetest.Reply{Body: gluetest.Completion(valid, 1, 1)})
	var asked []string
	calls, err := fantasy.NewToolCalls(0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := fantasy.JudgeTools(calls, lookupTool(&asked))
	if err != nil {
		t.Fatal(err)
	}
	fa := charm.NewAgent(fantasyOpenAI(t, srv.URL, ""), charm.WithTools(tools...))
	if _, _, err := agent.RunTyped[Weather](t.Context(), agent.New(fantasy.Agent(fa, charm.AgentCall{}), agent.WithOutputSchema(weatherSchema(t))), "Weather?"); err != nil {
		t.Fatal(err)
	}
	if strings.Join(asked, ",") != "Paris" {
		t.Errorf("the tool ran with %q, want only the passing call's Paris", asked)
	}
	rows := calls.Rows()
	if len(rows) != 2 || rows[0].Outcome != enforce.OutcomeRetried || rows[0].Path != "/city" || rows[1].Outcome != enforce.OutcomePassed {
		t.Fatalf("rows = %+v, want a retried call at /city, then a passed one", rows)
	}
	msgs := messages(t, srv.Requests()[1])
	last := msgs[len(msgs)-1]
	if content, _ := last["content"].(string); last["tool_call_id"] != "call_1" || !strings.Contains(content, "/city") {
		t.Errorf("the failed call's answer sent: %v, want the correction naming /city", last)
	}
}

// At its limit, a failed call ends the run with *agent.ToolCallError,
// though fantasy's Generate drops its tools' errors.
func TestAFantasyToolsExhaustedCallEndsTheRun(t *testing.T) {
	srv := gluetest.NewServer(t, toolCallReply("call_1", `{"city": 5}`))
	var asked []string
	calls, err := fantasy.NewToolCalls(0, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := fantasy.JudgeTools(calls, lookupTool(&asked))
	if err != nil {
		t.Fatal(err)
	}
	fa := charm.NewAgent(fantasyOpenAI(t, srv.URL, ""), charm.WithTools(tools...))
	_, err = agent.New(fantasy.Agent(fa, charm.AgentCall{})).Run(t.Context(), "Weather?")
	var tce *agent.ToolCallError
	if !errors.As(err, &tce) || tce.Tool != "lookup" || tce.CallID != "call_1" {
		t.Fatalf("error = %v, want *agent.ToolCallError for lookup's call_1", err)
	}
	if len(asked) != 0 {
		t.Errorf("the tool ran with %q", asked)
	}
}

// Every endless stream fantasy's OpenAI client passes on is stopped at a
// bound. Deltas that add nothing, and reasoning, fantasy's client reads
// past without a part (it yields text, tool input and the finish), so
// only the run's context bounds those; the shapes here are the ones that
// reach the glue.
func TestFantasysEndlessStreamsAreStopped(t *testing.T) {
	for _, sh := range gluetest.EndlessShapes {
		switch sh.Name {
		case "empty deltas", "empty content", "a role again and again", "reasoning without end", "empty deltas with tools offered":
			continue // fantasy's client reads them without end and passes nothing on (its chat completions reader has no reasoning)
		}
		t.Run(sh.Name, func(t *testing.T) {
			err := gluetest.StopsEndless(t, sh, func(url string) agent.Model { return fantasy.NewModel(fantasyOpenAI(t, url, ""), charm.Call{}) })
			if !errors.Is(err, agent.ErrModel) {
				t.Errorf("error = %v, want agent.ErrModel (a bound of the agent's)", err)
			}
		})
	}
}
