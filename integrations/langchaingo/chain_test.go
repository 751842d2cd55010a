package langchaingo_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/fake"
	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/prompts"
	"github.com/tmc/langchaingo/tools"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/fnv"
	"github.com/enforcer-go/enforcer/integrations/langchaingo"
)

// lookup is a langchaingo tool, run by langchaingo's own executor.
type lookup struct{ asked []string }

func (l *lookup) Name() string        { return "lookup" }
func (l *lookup) Description() string { return "Current weather of a city." }
func (l *lookup) Call(_ context.Context, city string) (string, error) {
	l.asked = append(l.asked, city)
	return "21C", nil
}

var _ tools.Tool = (*lookup)(nil)

// prompt is the text of the single prompt a chain sent on call i.
func prompt(t *testing.T, llm *recorded, i int) string {
	t.Helper()
	var b strings.Builder
	for _, mc := range llm.inputs[i] {
		for _, p := range mc.Parts {
			if tc, ok := p.(llms.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
	}
	return b.String()
}

// corrective is the corrective message of the run's retried row, as the
// conversation holds it.
func corrective(t *testing.T, res *agent.Result) string {
	t.Helper()
	for _, m := range res.Messages {
		if m.Role == agent.RoleUser && fnv.Hex32a(m.Content) == res.Attempts[0].CorrectiveMessageHash {
			return m.Content
		}
	}
	t.Fatal("no user message has the retried row's hash")
	return ""
}

func TestAnAgentExecutorRunsUnderTheContract(t *testing.T) {
	llm := &recorded{Model: fake.NewFakeLLM([]string{
		"I should look it up.\nAction: lookup\nAction Input: Paris",
		"Final Answer: " + fenced,
		"Final Answer: " + valid,
	})}
	tool := &lookup{}
	exec := agents.NewExecutor(agents.NewOneShotAgent(llm, []tools.Tool{tool}))
	a := agent.New(langchaingo.Chain(exec), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2))
	w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w, (Weather{City: "Paris", TempC: 21}); got != want {
		t.Errorf("answer = %+v, want %+v", got, want)
	}
	if got, want := tool.asked, []string{"Paris"}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("the executor ran the tool with %q, want %q", got, want)
	}
	if got, want := [2]any{res.Attempts[0].Outcome, res.Attempts[0].Stage}, [2]any{enforce.OutcomeRetried, enforce.StageJSONParse}; got != want {
		t.Errorf("first row (outcome, stage) = %v, want %v", got, want)
	}
	if got, want := res.Attempts[1].Outcome, enforce.OutcomePassed; got != want {
		t.Errorf("second row = %q, want %q", got, want)
	}
	t.Run("the executor without memory is given the failed answer and the correction", func(t *testing.T) {
		third := prompt(t, llm, 2)
		for _, want := range []string{"Weather in Paris?", "Your previous answer:\n" + fenced, corrective(t, res)} {
			if !strings.Contains(third, want) {
				t.Errorf("the corrected run's prompt lacks %q:\n%s", want, third)
			}
		}
	})
}

func TestAConversationChainKeepsTheCorrectionInItsMemory(t *testing.T) {
	llm := &recorded{Model: fake.NewFakeLLM([]string{`{"city": "Paris"}`, valid})}
	mem := memory.NewConversationBuffer()
	a := agent.New(langchaingo.Chain(chains.NewConversation(llm, mem)), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1))
	_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := [2]any{res.Attempts[0].Stage, res.Attempts[0].Path}, [2]any{enforce.StageSchemaValidate, "/tempC"}; got != want {
		t.Errorf("first row (stage, path) = %v, want %v", got, want)
	}
	history, err := mem.ChatHistory.Messages(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(history), 4; got != want {
		t.Fatalf("memory holds %d messages, want %d", got, want)
	}
	if got, want := history[1].GetContent(), `{"city": "Paris"}`; got != want {
		t.Errorf("the failed answer in memory = %q, want %q", got, want)
	}
	if got, want := fnv.Hex32a(history[2].GetContent()), res.Attempts[0].CorrectiveMessageHash; got != want {
		t.Errorf("hash of the correction in memory = %s, want the row's %s", got, want)
	}
	if strings.Contains(history[2].GetContent(), "Your previous answer:") {
		t.Error("a chain with memory was given its failed answer again")
	}
	if !strings.Contains(prompt(t, llm, 1), `{"city": "Paris"}`) {
		t.Error("the corrected call's prompt lacks the failed answer from memory")
	}
}

func TestAChainRefusesTheAgentsOwnTools(t *testing.T) {
	llm := &recorded{Model: fake.NewFakeLLM([]string{valid})}
	echo := agent.NewTool("echo", "", func(_ context.Context, in Weather) (string, error) { return in.City, nil })
	_, err := agent.New(langchaingo.Chain(chains.NewLLMChain(llm, prompts.NewPromptTemplate("{{.input}}", []string{"input"}))), agent.WithTools(echo)).Run(t.Context(), "hi")
	if !errors.Is(err, agent.ErrInvalidOption) {
		t.Errorf("error = %v, want agent.ErrInvalidOption", err)
	}
	if len(llm.inputs) != 0 {
		t.Error("the chain ran with tools it cannot run")
	}
}

func TestAFailedChainIsAProviderErrorWrappingTheChains(t *testing.T) {
	llm := &recorded{Model: fake.NewFakeLLM([]string{valid})}
	two := chains.NewLLMChain(llm, prompts.NewPromptTemplate("{{.a}} {{.b}}", []string{"a", "b"}))
	_, err := agent.New(langchaingo.Chain(two)).Run(t.Context(), "hi")
	var pe *agent.ProviderError
	if !errors.As(err, &pe) || pe.System != langchaingo.System {
		t.Errorf("error = %v, want *agent.ProviderError of system %q", err, langchaingo.System)
	}
	if !errors.Is(err, chains.ErrMultipleInputsInRun) {
		t.Errorf("error = %v, want chains.ErrMultipleInputsInRun", err)
	}
}

func TestANilChainIsAnInvalidOption(t *testing.T) {
	_, err := agent.New(langchaingo.Chain(nil)).Run(t.Context(), "hi")
	if !errors.Is(err, agent.ErrInvalidOption) {
		t.Errorf("error = %v, want agent.ErrInvalidOption", err)
	}
}

// An executor with memory over a one-shot agent keeps the conversation in
// its memory, but the agent's prompt never shows it: the corrected run's
// prompt must still hold the question and the failed answer. A
// conversational agent's prompt shows its memory, so it is given only the
// correction, as a conversation chain is.
func TestACorrectedChainSeesTheQuestionAndTheFailedAnswer(t *testing.T) {
	tests := []struct {
		name   string
		agent  func(llms.Model, []tools.Tool) agents.Agent
		final  string // how the agent's model marks its final answer
		resent bool   // whether the chain is given its failed answer again
	}{
		{"a one-shot agent, whose prompt shows no memory", func(m llms.Model, ts []tools.Tool) agents.Agent { return agents.NewOneShotAgent(m, ts) }, "Final Answer: ", true},
		{"a conversational agent, whose prompt shows its memory", func(m llms.Model, ts []tools.Tool) agents.Agent { return agents.NewConversationalAgent(m, ts) }, "AI: ", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			llm := &recorded{Model: fake.NewFakeLLM([]string{tt.final + fenced, tt.final + valid})}
			exec := agents.NewExecutor(tt.agent(llm, []tools.Tool{&lookup{}}), agents.WithMemory(memory.NewConversationBuffer()))
			a := agent.New(langchaingo.Chain(exec), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1))
			_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			second := prompt(t, llm, 1)
			for _, want := range []string{"Weather in Paris?", fenced, corrective(t, res)} {
				if !strings.Contains(second, want) {
					t.Errorf("the corrected run's prompt lacks %q:\n%s", want, second)
				}
			}
			if got := strings.Contains(second, "Your previous answer:\n"+fenced); got != tt.resent {
				t.Errorf("the chain was given its failed answer again: %v, want %v:\n%s", got, tt.resent, second)
			}
		})
	}
}
