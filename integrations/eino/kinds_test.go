package eino_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/integrations/eino"
	"github.com/enforcer-go/enforcer/integrations/internal/gluetest"
)

// The output kinds over an eino model: elements, a choice and a text,
// each in the modes the glue has (prompted, streamed or not, and the
// output tool), as they run over the agent's own scripted model.

func basketAgent(t *testing.T, m agent.Model, opts ...agent.Option) *agent.Agent {
	t.Helper()
	s, err := enforce.SchemaFor[gluetest.Basket]()
	if err != nil {
		t.Fatal(err)
	}
	return agent.New(m, append([]agent.Option{agent.WithOutputSchema(s), agent.WithOutputRetries(1), stillClock}, opts...)...)
}

// callChunks is an output tool call whose arguments stream in pieces.
func callChunks(id, name string, pieces ...string) []*schema.Message {
	zero := 0
	var out []*schema.Message
	for i, p := range pieces {
		tc := schema.ToolCall{Index: &zero, Function: schema.FunctionCall{Arguments: p}}
		if i == 0 {
			tc.ID, tc.Type, tc.Function.Name = id, "function", name
		}
		out = append(out, schema.AssistantMessage("", []schema.ToolCall{tc}))
	}
	return out
}

func TestElementsDeliveredBeforeARetryAreVoidedThroughTheEinoModel(t *testing.T) {
	failing := []string{`{"lines":[{"item":"tea","qty":1},`, `{"item":"jam","qty":0},`, `{"item":"oats","qty":2}]}`}
	passing := []string{`{"lines":[{"item":"tea","qty":1},`, `{"item":"jam","qty":1}]}`}
	tests := []struct {
		name    string
		replies [][]*schema.Message
		opts    []agent.Option
		model   func(*eino.Model) agent.Model
		want    []string
	}{
		{"prompted, streamed: the element is yielded as it closes, the failing one cuts the reply",
			[][]*schema.Message{chunks(failing...), chunks(passing...)}, nil,
			func(m *eino.Model) agent.Model { return m },
			[]string{"a1 #0 tea", "restart", "a2 #0 tea", "a2 #1 jam"}},
		{"prompted, generated: the elements come once the answer passes",
			[][]*schema.Message{chunks(failing...), chunks(passing...)}, nil,
			func(m *eino.Model) agent.Model { return agent.ModelFunc(m.Generate) },
			[]string{"a2 #0 tea", "a2 #1 jam"}},
		{"the output tool, its arguments streamed",
			[][]*schema.Message{callChunks("c1", "basket", failing...), callChunks("c2", "basket", passing...)},
			[]agent.Option{agent.WithOutputTool("basket")},
			func(m *eino.Model) agent.Model { return m },
			[]string{"a1 #0 tea", "restart", "a2 #0 tea", "a2 #1 jam"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newScripted(tt.replies...)
			a := basketAgent(t, tt.model(eino.NewModel(m)), tt.opts...)
			st := agent.RunElements[gluetest.Basket, gluetest.Line](t.Context(), a, "Shopping?", "/lines")
			got := gluetest.Consume(st)
			_, res, err := st.Result()
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, ", ") != strings.Join(tt.want, ", ") {
				t.Errorf("the consumer saw %q, want %q", got, tt.want)
			}
			if len(res.Attempts) != 2 || res.Attempts[0].Path != "/lines/1/qty" || res.Attempts[0].Kind != enforce.KindElements {
				t.Errorf("rows = %+v, want an elements row failing at /lines/1/qty, then a pass", res.Attempts)
			}
			if m.calls() != 2 {
				t.Errorf("the eino model was called %d times, want 2", m.calls())
			}
		})
	}
}

func TestANearMissLabelThroughTheEinoModel(t *testing.T) {
	for _, tool := range []string{"", "classify"} {
		answer := func(label string) []*schema.Message {
			if tool == "" {
				return chunks(label[:4], label[4:])
			}
			return callChunks("c-"+label, tool, `{"label":`, strconv.Quote(label), `}`)
		}
		for _, repair := range []bool{false, true} {
			t.Run(fmt.Sprintf("output tool %q, repair %v", tool, repair), func(t *testing.T) {
				replies := [][]*schema.Message{answer("Positive.")}
				if !repair {
					replies = append(replies, answer("positive"))
				}
				m := newScripted(replies...)
				gluetest.WantNearMiss(t, eino.NewModel(m), tool, repair)
				if m.calls() != len(replies) {
					t.Fatalf("the eino model was called %d times, want %d", m.calls(), len(replies))
				}
				if in := m.inputs[len(replies)-1]; !repair && !strings.Contains(in[len(in)-1].Content, gluetest.NamesTheLabels) {
					t.Errorf("the correction the eino model saw does not name the labels:\n%s", in[len(in)-1].Content)
				}
			})
		}
	}
}

func TestATextIsCutAtAForbiddenSubstringThroughTheEinoModel(t *testing.T) {
	m := newScripted(chunks(gluetest.TextAnswers[0]...), chunks(gluetest.TextAnswers[1]...))
	gluetest.WantTextCut(t, eino.NewModel(m))
	end := m.streams[0]
	<-end.done
	if end.sent >= len(gluetest.TextAnswers[0]) {
		t.Errorf("the eino stream sent all %d chunks; want it stopped at the forbidden words", end.sent)
	}
	rules, err := enforce.Text(enforce.MustNotContain("as an AI"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := agent.RunText(t.Context(), agent.New(eino.NewModel(newScripted()), agent.WithOutputSchema(rules),
		agent.WithOutputTool("answer")), "Weather?"); !errors.Is(err, agent.ErrInvalidOption) {
		t.Errorf("a text over the output tool: err = %v, want ErrInvalidOption before the eino model is called", err)
	}
}
