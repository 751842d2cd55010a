package agent_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/fnv"
)

// thought is a reasoning model's inline thinking before its answer; its
// JSON-like text would fail json-parse if it were judged.
const thought = "<think>\nThe user asks about Paris. Maybe {\"city\": \"Lyon\"? No, Paris.\n</think>\n\n"

// lastAssistant is the conversation's last assistant message.
func lastAssistant(t *testing.T, res *agent.Result) agent.Message {
	t.Helper()
	for i := len(res.Messages) - 1; i >= 0; i-- {
		if res.Messages[i].Role == agent.RoleAssistant {
			return res.Messages[i]
		}
	}
	t.Fatal("no assistant message")
	return agent.Message{}
}

func TestInlineThinking(t *testing.T) {
	t.Run("a think block before the JSON is thinking, kept beside the answer", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(thought+valid))
		a := agent.New(m, agent.WithOutputRetries(2))

		w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := w, (Weather{City: "Paris", TempC: 21}); got != want {
			t.Errorf("answer = %+v, want %+v", got, want)
		}
		if res.Output != valid {
			t.Errorf("Output = %q, want %q", res.Output, valid)
		}
		want := []row{{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomePassed}}
		if got := rows(res.Attempts); !reflect.DeepEqual(got, want) {
			t.Errorf("rows = %+v, want %+v", got, want)
		}
		if got, want := res.Attempts[0].Thinking, (&enforce.Thinking{Bytes: len(thought), Inline: true}); !reflect.DeepEqual(got, want) {
			t.Errorf("row's Thinking = %+v, want %+v", got, want)
		}
		msg := lastAssistant(t, res)
		if got, want := msg.Content, valid; got != want {
			t.Errorf("conversation's answer = %q, want %q", got, want)
		}
		if got, want := msg.Reasoning, `The user asks about Paris. Maybe {"city": "Lyon"? No, Paris.`; got != want {
			t.Errorf("conversation's reasoning = %q, want %q", got, want)
		}
	})

	for _, block := range []string{"<thinking>x</thinking>", "<reasoning>x</reasoning>", "\n <THINK>x</Think>\n", "<think></think>"} {
		t.Run("the block "+strings.TrimSpace(block)+" is thinking too", func(t *testing.T) {
			m := agenttest.NewModel(t, agenttest.Reply(block+valid))
			a := agent.New(m, agent.WithOutputRetries(0))
			_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := res.Attempts[0].Thinking, (&enforce.Thinking{Bytes: len(block), Inline: true}); !reflect.DeepEqual(got, want) {
				t.Errorf("row's Thinking = %+v, want %+v", got, want)
			}
		})
	}

	t.Run("a ModelFunc's reply is read so too, without retries", func(t *testing.T) {
		m := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
			return agent.Response{Message: agent.Message{Content: thought + valid}}, nil
		})
		w, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m), "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if w.City != "Paris" || res.Output != valid {
			t.Errorf("answer = %+v, Output = %q, want Paris and %q", w, res.Output, valid)
		}
	})

	t.Run("turned off, the block is part of the answer", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(thought+valid))
		a := agent.New(m, agent.WithOutputRetries(0), agent.WithInlineThinking(false))
		_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
		var oe *enforce.OutputError
		if !errors.As(err, &oe) || oe.Stage != enforce.StageJSONParse {
			t.Fatalf("err = %v, want an *enforce.OutputError at json-parse", err)
		}
		if res.Attempts[0].Thinking != nil {
			t.Errorf("row's Thinking = %+v, want nil", res.Attempts[0].Thinking)
		}
	})

	t.Run("a reply with no block at its start is untouched", func(t *testing.T) {
		for _, text := range []string{" " + valid, valid + "<think>x</think>", "<thinker>" + valid} {
			m := agenttest.NewModel(t, agenttest.Reply(text))
			a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(0))
			res, _ := a.Run(t.Context(), "Weather in Paris?")
			if got := lastAssistant(t, res); got.Content != text || got.Reasoning != "" {
				t.Errorf("message = %+v, want the content %q and no reasoning", got, text)
			}
			if res.Attempts[0].Thinking != nil {
				t.Errorf("row's Thinking = %+v, want nil", res.Attempts[0].Thinking)
			}
		}
	})

	t.Run("thinking before tool calls is kept apart, and the answer after them judged", func(t *testing.T) {
		m := agent.ModelFunc(func(_ context.Context, req agent.Request) (agent.Response, error) {
			if len(req.Messages) == 2 {
				return agent.Response{Message: agent.Message{Content: "<think>look it up</think>", ToolCalls: []agent.ToolCall{{ID: "c1", Name: "lookup", Arguments: []byte(`{}`)}}}}, nil
			}
			return agent.Response{Message: agent.Message{Content: valid}}, nil
		})
		lookup := agent.NewTool("lookup", "looks up the weather", func(context.Context, struct{}) (string, error) { return "21", nil })
		a := agent.New(m, agent.WithTools(lookup), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(0))
		res, err := a.Run(t.Context(), "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		call := res.Messages[2]
		if call.Content != "" || call.Reasoning != "look it up" {
			t.Errorf("tool-call message = %+v, want no content and the reasoning %q", call, "look it up")
		}
		if res.Attempts[0].Thinking != nil {
			t.Errorf("final row's Thinking = %+v, want nil: its reply held none", res.Attempts[0].Thinking)
		}
	})

	t.Run("thinking the provider gives apart is on the row, and not judged", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(valid).WithReasoning("hmm, Paris"))
		a := agent.New(m, agent.WithOutputRetries(0))
		_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.Attempts[0].Thinking, (&enforce.Thinking{Bytes: len("hmm, Paris")}); !reflect.DeepEqual(got, want) {
			t.Errorf("row's Thinking = %+v, want %+v", got, want)
		}
	})
}

func TestAnAnswerThatNeverCame(t *testing.T) {
	for _, tc := range []struct {
		name     string
		step     agenttest.Step
		thinking *enforce.Thinking
	}{
		{"thinking cut at the output limit inside <think>", agenttest.Reply("<think>\nLet me think. " + strings.Repeat("Hmm. ", 20)).WithStop(agent.StopLength),
			&enforce.Thinking{Bytes: len("<think>\nLet me think. " + strings.Repeat("Hmm. ", 20)), Inline: true}},
		{"reasoning given apart, no content, at the output limit", agenttest.Reply("").WithReasoning("Let me think.").WithStop(agent.StopLength),
			&enforce.Thinking{Bytes: len("Let me think.")}},
		{"hidden reasoning tokens, no content, at the output limit", agenttest.Reply("").WithDetailedUsage(10, 100, 0, 100).WithStop(agent.StopLength), nil},
		{"reasoning given apart and nothing else, the reply complete", agenttest.Reply("").WithReasoning(valid), &enforce.Thinking{Bytes: len(valid)}},
	} {
		t.Run(tc.name+": it is asked for, not corrected for its syntax", func(t *testing.T) {
			s := newStream(t)
			m := agenttest.NewModel(t, tc.step, agenttest.Reply(valid))
			a := agent.New(m, agent.WithOutputRetries(2), agent.WithEvents(s))

			_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			want := []row{
				{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageNoAnswer, Hashed: true},
				{Attempt: 2, Iteration: 2, Outcome: enforce.OutcomePassed},
			}
			if got := rows(res.Attempts); !reflect.DeepEqual(got, want) {
				t.Fatalf("rows = %+v, want %+v", got, want)
			}
			if got := res.Attempts[0].Thinking; !reflect.DeepEqual(got, tc.thinking) {
				t.Errorf("row's Thinking = %+v, want %+v", got, tc.thinking)
			}
			reqs := m.Requests()
			msgs := reqs[1].Messages
			corr := msgs[len(msgs)-1].Content
			if got, want := fnv.Hex32a(corr), res.Attempts[0].CorrectiveMessageHash; got != want {
				t.Errorf("corrective message hash = %s, row's %s", got, want)
			}
			if strings.Contains(corr, string(enforce.StageJSONParse)) || !strings.Contains(corr, "give the answer") {
				t.Errorf("corrective message = %q, want one asking for the answer, citing no syntax", corr)
			}
			got, _ := methods(t, s)
			if want := []string{"turn/started", "turn/retryScheduled", "output/schemaRetry", "turn/completed"}; !slices.Equal(got, want) {
				t.Errorf("stream = %v, want %v", got, want)
			}
		})
	}

	t.Run("with escalation, it can move to the next model", func(t *testing.T) {
		thinker := agenttest.NewModel(t, agenttest.Reply("<think>and so on").WithStop(agent.StopLength))
		next := agenttest.NewModel(t, agenttest.Reply(valid))
		a := agent.New(thinker, agent.WithOutputRetries(1), agent.WithEscalation(agent.Escalation{
			Models: []agent.Model{next},
			OnRow:  func(r enforce.Attempt) bool { return r.Stage == enforce.StageNoAnswer },
		}))
		_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if got := outcomesOf(res.Attempts); !slices.Equal(got, []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomePassed}) || next.Calls() != 1 {
			t.Errorf("outcomes = %v, next model's calls = %d; want retried then passed on the next model", got, next.Calls())
		}
	})

	t.Run("with no retry left, the run ends at no-answer", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply("<think>and so on").WithStop(agent.StopLength))
		a := agent.New(m, agent.WithOutputRetries(0))
		_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
		var oe *enforce.OutputError
		if !errors.As(err, &oe) || oe.Stage != enforce.StageNoAnswer || !oe.Truncated {
			t.Fatalf("err = %v, want an *enforce.OutputError at no-answer, truncated", err)
		}
		if !errors.Is(err, enforce.ErrExhausted) {
			t.Errorf("err does not match enforce.ErrExhausted")
		}
		if got := res.Attempts[0]; got.Outcome != enforce.OutcomeExhausted || !got.Truncated {
			t.Errorf("row = %+v, want exhausted and truncated", got)
		}
	})

	t.Run("without retries, the answer that never came is told apart too", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply("<think>and so on").WithStop(agent.StopLength))
		_, _, err := agent.RunTyped[Weather](t.Context(), agent.New(m), "Weather in Paris?")
		var oe *enforce.OutputError
		if !errors.As(err, &oe) || oe.Stage != enforce.StageNoAnswer {
			t.Fatalf("err = %v, want an *enforce.OutputError at no-answer", err)
		}
	})

	t.Run("a blank reply with no thinking, complete, still fails at json-parse", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(" "))
		a := agent.New(m, agent.WithOutputRetries(0))
		_, _, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
		var oe *enforce.OutputError
		if !errors.As(err, &oe) || oe.Stage != enforce.StageJSONParse {
			t.Fatalf("err = %v, want an *enforce.OutputError at json-parse", err)
		}
	})
}

func TestStreamedThinking(t *testing.T) {
	t.Run("nothing is judged doomed while the model thinks inline", func(t *testing.T) {
		m := agenttest.NewStreamingModel(t, agenttest.Reply(thought+valid).InChunks(1))
		a := agent.New(m, agent.WithOutputRetries(1))

		_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Attempts[0]; got.Outcome != enforce.OutcomePassed || got.Cut != nil {
			t.Errorf("row = %+v, want passed, not cut", got)
		}
		if c := m.Consumed()[0]; c.Stopped {
			t.Errorf("consumed = %+v, want the whole reply read", c)
		}
	})

	t.Run("the answer after the thinking is cut where it is doomed, counted from its start", func(t *testing.T) {
		answer := `{"city":7,"tempC":21}` // doomed at /city's type
		run := func(reply string) *agent.Result {
			m := agenttest.NewStreamingModel(t, agenttest.Reply(reply).InChunks(1), agenttest.Reply(valid))
			_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(1)), "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		alone, after := run(answer), run(thought+answer)
		cut, want := after.Attempts[0].Cut, alone.Attempts[0].Cut
		if want == nil || !reflect.DeepEqual(cut, want) {
			t.Fatalf("row's Cut = %+v, want %+v, as for the answer alone", cut, want)
		}
		if got := after.Messages[2]; got.Content != answer[:cut.Bytes] || got.Reasoning == "" {
			t.Errorf("the cut reply = %+v, want the content %q and the reasoning apart", got, answer[:cut.Bytes])
		}
	})

	t.Run("blank space while thinking is not a degenerate answer", func(t *testing.T) {
		m := agenttest.NewStreamingModel(t, agenttest.Reply("<think>"+strings.Repeat(" ", 64)+"</think>"+valid).InChunks(4))
		a := agent.New(m, agent.WithOutputRetries(1), agent.WithDegenerateStop(agent.Degenerate{Whitespace: 16}))
		_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Attempts[0]; got.Outcome != enforce.OutcomePassed || got.Cut != nil {
			t.Errorf("row = %+v, want passed, not cut", got)
		}
	})

	t.Run("typed partials begin at the answer, after the thinking", func(t *testing.T) {
		m := agenttest.NewStreamingModel(t, agenttest.Reply(`<think>{"city":"Lyon"}</think>`+valid).InChunks(3))
		s := agent.RunTypedStream[Weather](t.Context(), agent.New(m), "Weather in Paris?")
		var cities []string
		for p := range s.Partials() {
			if c := p.Value.City; c != "" && (len(cities) == 0 || cities[len(cities)-1] != c) {
				cities = append(cities, c)
			}
		}
		if _, _, err := s.Result(); err != nil {
			t.Fatal(err)
		}
		for _, c := range cities {
			if !strings.HasPrefix("Paris", c) {
				t.Errorf("cities shown = %q, want only the answer's", cities)
				break
			}
		}
		if len(cities) == 0 {
			t.Errorf("no partial showed the answer's city")
		}
	})

	t.Run("reasoning streamed apart is assembled beside the answer", func(t *testing.T) {
		m := agenttest.NewStreamingModel(t, agenttest.Reply(valid).WithReasoning("Paris, in summer.").InChunks(3))
		a := agent.New(m, agent.WithOutputRetries(0))
		_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if got := lastAssistant(t, res); got.Content != valid || got.Reasoning != "Paris, in summer." {
			t.Errorf("message = %+v, want the answer and the reasoning apart", got)
		}
	})

	t.Run("thinking cut at the limit, streamed, is an answer that never came", func(t *testing.T) {
		m := agenttest.NewStreamingModel(t, agenttest.Reply("<think>{{{{ hmm").WithStop(agent.StopLength).InChunks(2), agenttest.Reply(valid))
		a := agent.New(m, agent.WithOutputRetries(1))
		_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Attempts[0]; got.Stage != enforce.StageNoAnswer || got.Cut != nil {
			t.Errorf("row = %+v, want no-answer, not cut", got)
		}
	})
}

func TestThinkingThatLoops(t *testing.T) {
	loop := strings.Repeat("Wait, let me reconsider. ", 80)
	bounds := agent.Degenerate{Window: 256, Repeats: 4}
	for _, tc := range []struct {
		name string
		step agenttest.Step
	}{
		{"inline", agenttest.Reply("<think>" + loop + "</think>" + valid).InChunks(16)},
		{"given apart", agenttest.Reply(valid).WithReasoning(loop).InChunks(16)},
	} {
		t.Run(tc.name+", opted in: it is cut, and the answer asked for", func(t *testing.T) {
			m := agenttest.NewStreamingModel(t, tc.step, agenttest.Reply(valid))
			d := bounds
			d.Thinking = true
			a := agent.New(m, agent.WithOutputRetries(1), agent.WithDegenerateStop(d))
			_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			row := res.Attempts[0]
			if row.Stage != enforce.StageDegenerate || row.Cut == nil || !row.Cut.Thinking || row.Cut.Bytes >= len(loop) {
				t.Fatalf("first row = %+v (cut %+v), want degenerate, cut in its thinking", row, row.Cut)
			}
			if c := m.Consumed()[0]; !c.Stopped || !c.Cancelled {
				t.Errorf("consumed = %+v, want the call stopped and cancelled", c)
			}
			if got := res.Messages[2]; got.Content != "" || len(got.Reasoning) > len(loop) || got.Reasoning == "" {
				t.Errorf("the cut reply = %+v, want its thinking as far as it was read, and no answer", got)
			}
			msgs := m.Requests()[1].Messages
			if corr := msgs[len(msgs)-1].Content; !strings.Contains(corr, "thinking") || fnv.Hex32a(corr) != row.CorrectiveMessageHash {
				t.Errorf("corrective = %q, want one about the thinking, hashed on the row", corr)
			}
		})
		t.Run(tc.name+", not opted in: thinking is never read", func(t *testing.T) {
			m := agenttest.NewStreamingModel(t, tc.step)
			a := agent.New(m, agent.WithOutputRetries(1), agent.WithDegenerateStop(bounds))
			_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Attempts[0]; got.Outcome != enforce.OutcomePassed || got.Cut != nil {
				t.Errorf("row = %+v, want passed, not cut", got)
			}
		})
	}
}

func outcomesOf(rows []enforce.Attempt) []enforce.Outcome {
	var out []enforce.Outcome
	for _, r := range rows {
		out = append(out, r.Outcome)
	}
	return out
}
