package langchaingo_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/integrations/internal/gluetest"
	"github.com/enforcer-go/enforcer/integrations/langchaingo"
)

// The output kinds over a langchaingo model: elements, a choice and a
// text, each in the modes the glue has (prompted, streamed through the
// callback or not, and the output tool, whose call langchaingo gives
// whole), as they run over the agent's own scripted model.

// said is a reply streamed through the callback in pieces.
func said(pieces ...string) scriptedReply {
	return scriptedReply{chunks: pieces, choice: llms.ContentChoice{StopReason: "stop"}}
}

// called is a reply calling tool with args, which langchaingo gives
// when the call returns.
func called(id, tool, args string) scriptedReply {
	return scriptedReply{chunks: []string{args}, unsaid: true, choice: llms.ContentChoice{StopReason: "tool_calls",
		ToolCalls: []llms.ToolCall{{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: tool, Arguments: args}}}}}
}

func TestElementsDeliveredBeforeARetryAreVoidedThroughLangchaingo(t *testing.T) {
	failing := []string{`{"lines":[{"item":"tea","qty":1},`, `{"item":"jam","qty":0},`, `{"item":"oats","qty":2}]}`}
	passing := []string{`{"lines":[{"item":"tea","qty":1},`, `{"item":"jam","qty":1}]}`}
	tests := []struct {
		name    string
		replies []scriptedReply
		opts    []agent.Option
		model   func(*langchaingo.Model) agent.Model
		want    string
	}{
		{"prompted, streamed: the element is yielded as it closes, the failing one cuts the reply",
			[]scriptedReply{said(failing...), said(passing...)}, nil,
			func(m *langchaingo.Model) agent.Model { return m },
			"a1 #0 tea, restart, a2 #0 tea, a2 #1 jam"},
		{"prompted, generated: the elements come once the answer passes",
			[]scriptedReply{said(failing...), said(passing...)}, nil,
			func(m *langchaingo.Model) agent.Model { return agent.ModelFunc(m.Generate) },
			"a2 #0 tea, a2 #1 jam"},
		{"the output tool: the call comes whole, and its elements before the one that fails",
			[]scriptedReply{called("c1", "basket", strings.Join(failing, "")), called("c2", "basket", strings.Join(passing, ""))},
			[]agent.Option{agent.WithOutputTool("basket")},
			func(m *langchaingo.Model) agent.Model { return m },
			"a1 #0 tea, restart, a2 #0 tea, a2 #1 jam"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			llm := &scriptedLLM{replies: tt.replies}
			s, err := enforce.SchemaFor[gluetest.Basket]()
			if err != nil {
				t.Fatal(err)
			}
			a := agent.New(tt.model(langchaingo.NewModel(llm)), append([]agent.Option{agent.WithOutputSchema(s), agent.WithOutputRetries(1), stillClock}, tt.opts...)...)
			st := agent.RunElements[gluetest.Basket, gluetest.Line](t.Context(), a, "Shopping?", "/lines")
			got := gluetest.Consume(st)
			_, res, err := st.Result()
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, ", ") != tt.want {
				t.Errorf("the consumer saw %q, want %q", got, tt.want)
			}
			if len(res.Attempts) != 2 || res.Attempts[0].Path != "/lines/1/qty" || res.Attempts[0].Kind != enforce.KindElements {
				t.Errorf("rows = %+v, want an elements row failing at /lines/1/qty, then a pass", res.Attempts)
			}
			if len(llm.inputs) != 2 {
				t.Errorf("langchaingo was called %d times, want 2", len(llm.inputs))
			}
		})
	}
}

func TestANearMissLabelThroughLangchaingo(t *testing.T) {
	for _, tool := range []string{"", "classify"} {
		answer := func(label string) scriptedReply {
			if tool == "" {
				return said(label[:4], label[4:])
			}
			return called("c-"+label, tool, `{"label":`+strconv.Quote(label)+`}`)
		}
		for _, repair := range []bool{false, true} {
			t.Run(fmt.Sprintf("output tool %q, repair %v", tool, repair), func(t *testing.T) {
				replies := []scriptedReply{answer("Positive.")}
				if !repair {
					replies = append(replies, answer("positive"))
				}
				llm := &scriptedLLM{replies: replies}
				gluetest.WantNearMiss(t, langchaingo.NewModel(llm), tool, repair)
				if len(llm.inputs) != len(replies) {
					t.Fatalf("langchaingo was called %d times, want %d", len(llm.inputs), len(replies))
				}
				if c := fmt.Sprint(llm.inputs[len(replies)-1][len(llm.inputs[len(replies)-1])-1].Parts); !repair && !strings.Contains(c, gluetest.NamesTheLabels) {
					t.Errorf("the correction langchaingo saw does not name the labels:\n%s", c)
				}
			})
		}
	}
}

func TestATextIsCutAtAForbiddenSubstringThroughLangchaingo(t *testing.T) {
	llm := &scriptedLLM{replies: []scriptedReply{said(gluetest.TextAnswers[0]...), said(gluetest.TextAnswers[1]...)}}
	gluetest.WantTextCut(t, langchaingo.NewModel(llm))
	if end := llm.ends[0]; end.stoppedBy == nil || end.sent >= len(gluetest.TextAnswers[0]) {
		t.Errorf("the callback took %d chunks, stopped by %v; want langchaingo's stream stopped at the forbidden words", end.sent, end.stoppedBy)
	}
	rules, err := enforce.Text(enforce.MustNotContain("as an AI"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := agent.RunText(t.Context(), agent.New(langchaingo.NewModel(&scriptedLLM{}), agent.WithOutputSchema(rules),
		agent.WithOutputTool("answer")), "Weather?"); !errors.Is(err, agent.ErrInvalidOption) {
		t.Errorf("a text over the output tool: err = %v, want ErrInvalidOption before langchaingo is called", err)
	}
}
