package agent_test

import (
	"reflect"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

// headless is DeepSeek R1's and Qwen3's thinking where the chat template
// ended the prompt with "<think>\n": the reply holds only the closing tag.
const headless = "Okay, the user asks about Paris. Maybe {\"city\": \"Lyon\"? No, Paris.\n</think>\n\n"

func TestHeadlessThinking(t *testing.T) {
	t.Run("not read unless asked: a reply in prose is cut at its first byte", func(t *testing.T) {
		m := agenttest.NewStreamingModel(t, agenttest.Reply(headless+valid).InChunks(1), agenttest.Reply(valid))
		_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(1)), "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Attempts[0]; got.Cut == nil || got.Cut.Bytes != 1 {
			t.Errorf("row = %+v, want cut at its first byte", got)
		}
	})

	t.Run("the text before a closing tag on its own line is thinking", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(headless+valid))
		a := agent.New(m, agent.WithOutputRetries(1), agent.WithHeadlessThinking())
		w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if w.City != "Paris" || res.Output != valid {
			t.Errorf("answer = %+v, Output = %q, want Paris and %q", w, res.Output, valid)
		}
		if got, want := res.Attempts[0].Thinking, (&enforce.Thinking{Bytes: len(headless), Inline: true}); !reflect.DeepEqual(got, want) {
			t.Errorf("row's Thinking = %+v, want %+v", got, want)
		}
		if got, want := lastAssistant(t, res).Reasoning, `Okay, the user asks about Paris. Maybe {"city": "Lyon"? No, Paris.`; got != want {
			t.Errorf("reasoning = %q, want %q", got, want)
		}
	})

	t.Run("a reply cut at the limit before its answer never came", func(t *testing.T) {
		m := agenttest.NewModel(t,
			agenttest.Reply("Let me think about Paris.\n</think>\n").WithStop(agent.StopLength),
			agenttest.Reply(valid))
		a := agent.New(m, agent.WithOutputRetries(1), agent.WithHeadlessThinking())
		_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Attempts[0]; got.Stage != enforce.StageNoAnswer {
			t.Errorf("first row = %+v, want no-answer", got)
		}
	})

	// Each has a second reading, so the text is the answer as written.
	for name, text := range map[string]string{
		"a closing tag inside a JSON string":            `{"city":"</think>","tempC":21}`,
		"a closing tag after text on its line":          "Here: {\"city\":\"a</think>\n\",\"tempC\":1}",
		"a closing tag with text after it on its line":  "thinking\n</think>{\"city\":\"Paris\",\"tempC\":21}",
		"a JSON answer whose string ends a line at one": "[\"x\n</think>\n\"]",
	} {
		t.Run("untouched: "+name, func(t *testing.T) {
			m := agenttest.NewModel(t, agenttest.Reply(text))
			a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(0), agent.WithHeadlessThinking())
			res, _ := a.Run(t.Context(), "Weather in Paris?")
			if got := lastAssistant(t, res); got.Content != text || got.Reasoning != "" {
				t.Errorf("message = %+v, want the content %q and no reasoning", got, text)
			}
			if res.Attempts[0].Thinking != nil {
				t.Errorf("row's Thinking = %+v, want nil", res.Attempts[0].Thinking)
			}
		})
	}

	t.Run("untouched without a JSON contract: a text answer may hold the tag", func(t *testing.T) {
		text := "Close the block with\n</think>\nas the template does."
		m := agenttest.NewModel(t, agenttest.Reply(text))
		res, err := agent.New(m, agent.WithHeadlessThinking()).Run(t.Context(), "How do I close a think block?")
		if err != nil {
			t.Fatal(err)
		}
		if res.Output != text {
			t.Errorf("Output = %q, want %q", res.Output, text)
		}
	})

	t.Run("streamed, nothing is judged doomed while the model thinks", func(t *testing.T) {
		m := agenttest.NewStreamingModel(t, agenttest.Reply(headless+valid).InChunks(1))
		a := agent.New(m, agent.WithOutputRetries(1), agent.WithHeadlessThinking())
		_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Attempts[0]; got.Outcome != enforce.OutcomePassed || got.Cut != nil || got.Thinking == nil || !got.Thinking.Inline {
			t.Errorf("row = %+v, want passed, not cut, thinking inline", got)
		}
	})

	t.Run("streamed, the answer after it is cut where it is doomed, counted from its start", func(t *testing.T) {
		answer := `{"city":7,"tempC":21}`
		run := func(reply string) *agent.Result {
			m := agenttest.NewStreamingModel(t, agenttest.Reply(reply).InChunks(1), agenttest.Reply(valid))
			_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(1), agent.WithHeadlessThinking()), "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		alone, after := run(answer), run(headless+answer)
		if cut, want := after.Attempts[0].Cut, alone.Attempts[0].Cut; want == nil || !reflect.DeepEqual(cut, want) {
			t.Errorf("row's Cut = %+v, want %+v, as for the answer alone", cut, want)
		}
	})
}
