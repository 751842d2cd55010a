package agent_test

import (
	"reflect"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

// analysis is gpt-oss's harmony analysis channel as a server with no
// harmony parser passes it in the content, up to the final channel's
// header; its JSON-like text would be doomed were it judged.
const analysis = `<|channel|>analysis<|message|>We need to answer. Maybe {"city": 7? No, Paris.<|end|><|start|>assistant<|channel|>final<|message|>`

func TestHarmonyThinking(t *testing.T) {
	for _, tc := range []struct{ name, reply, trailer string }{
		{"ended by <|return|>", analysis + valid + "<|return|>", "<|return|>"},
		{"ended by <|end|>", analysis + valid + "<|end|>", "<|end|>"},
		{"with no stop marker", analysis + valid, ""},
		{"begun by <|start|>assistant", "<|start|>assistant" + analysis + valid, ""},
	} {
		t.Run("the analysis channel is thinking, the final channel the answer: "+tc.name, func(t *testing.T) {
			m := agenttest.NewModel(t, agenttest.Reply(tc.reply))
			_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(0)), "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			head := len(tc.reply) - len(valid) - len(tc.trailer)
			if got, want := res.Attempts[0].Thinking, (&enforce.Thinking{Bytes: head, Inline: true}); !reflect.DeepEqual(got, want) {
				t.Errorf("row's Thinking = %+v, want %+v", got, want)
			}
			msg := lastAssistant(t, res)
			if msg.Content != valid || msg.Reasoning != `We need to answer. Maybe {"city": 7? No, Paris.` {
				t.Errorf("message = %+v, want the final channel's text and the analysis apart", msg)
			}
		})
	}

	t.Run("two analysis messages are both thinking", func(t *testing.T) {
		reply := "<|channel|>analysis<|message|>One.<|end|><|start|>assistant" + analysis + valid + "<|return|>"
		m := agenttest.NewModel(t, agenttest.Reply(reply))
		_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(0)), "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if got := lastAssistant(t, res); got.Content != valid || got.Reasoning != "One.\n\n"+`We need to answer. Maybe {"city": 7? No, Paris.` {
			t.Errorf("message = %+v", got)
		}
	})

	t.Run("WithInlineThinking(false) reads the text as written", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(analysis+valid))
		_, res, _ := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithInlineThinking(false), agent.WithOutputRetries(0)), "Weather in Paris?")
		if got := res.Attempts[0]; got.Stage != enforce.StageJSONParse || got.Thinking != nil {
			t.Errorf("row = %+v, want json-parse and no thinking", got)
		}
	})

	t.Run("markers later in the answer are the answer's, left alone", func(t *testing.T) {
		hostile := `{"city":"<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>final<|message|>","tempC":21}`
		m := agenttest.NewModel(t, agenttest.Reply(hostile))
		_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(0)), "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if got := lastAssistant(t, res); got.Content != hostile || got.Reasoning != "" || res.Attempts[0].Thinking != nil {
			t.Errorf("message = %+v, row's Thinking %+v; want the answer as written", got, res.Attempts[0].Thinking)
		}
	})

	t.Run("a reply cut inside the analysis is an answer that never came", func(t *testing.T) {
		cut := "<|channel|>analysis<|message|>We need {{{ hmm"
		for _, stream := range []bool{false, true} {
			step := agenttest.Reply(cut).WithStop(agent.StopLength)
			var m agent.Model
			if stream {
				m = agenttest.NewStreamingModel(t, step.InChunks(1), agenttest.Reply(valid))
			} else {
				m = agenttest.NewModel(t, step, agenttest.Reply(valid))
			}
			_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(1)), "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Attempts[0]; got.Stage != enforce.StageNoAnswer || !got.Truncated || got.Cut != nil ||
				!reflect.DeepEqual(got.Thinking, &enforce.Thinking{Bytes: len(cut), Inline: true}) {
				t.Errorf("streamed %v: row = %+v, want no-answer at the limit, not cut", stream, got)
			}
		}
	})

	t.Run("streamed byte by byte, nothing is judged doomed until the final channel", func(t *testing.T) {
		m := agenttest.NewStreamingModel(t, agenttest.Reply(analysis+valid+"<|return|>").InChunks(1))
		_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(1)), "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Attempts[0]; got.Outcome != enforce.OutcomePassed || got.Cut != nil {
			t.Errorf("row = %+v, want passed, not cut", got)
		}
		if c := m.Consumed()[0]; c.Stopped {
			t.Errorf("consumed = %+v, want the whole reply read", c)
		}
		if got := lastAssistant(t, res); got.Content != valid {
			t.Errorf("answer = %q, want %q", got.Content, valid)
		}
	})

	t.Run("streamed, the final message is cut where it is doomed, counted from its start", func(t *testing.T) {
		answer := `{"city":7,"tempC":21}`
		run := func(reply string) *agent.Result {
			m := agenttest.NewStreamingModel(t, agenttest.Reply(reply).InChunks(1), agenttest.Reply(valid))
			_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(1)), "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		alone, after := run(answer), run(analysis+answer+"<|return|>")
		cut, want := after.Attempts[0].Cut, alone.Attempts[0].Cut
		if want == nil || !reflect.DeepEqual(cut, want) {
			t.Fatalf("row's Cut = %+v, want %+v, as for the answer alone", cut, want)
		}
		if got := after.Messages[2]; got.Content != answer[:cut.Bytes] || got.Reasoning == "" {
			t.Errorf("the cut reply = %+v, want the content %q and the reasoning apart", got, answer[:cut.Bytes])
		}
	})
}
