package langchaingo_test

import (
	"slices"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/fake"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/integrations/langchaingo"
)

type Refund struct {
	Order  string  `json:"order"`
	Amount float64 `json:"amount"`
}

type Escalation struct {
	Team string `json:"team"`
}

// A union runs over a langchaingo model as over any model: the answer
// naming no member is corrected, each row names its member, and the
// value is the chosen member's.
func TestAUnionIsCorrectedThroughLangchaingosFakeLLM(t *testing.T) {
	llm := &recorded{Model: fake.NewFakeLLM([]string{`{"team":"billing"}`, `{"escalation":{"team":"billing"}}`})}
	a := agent.New(agent.ModelFunc(langchaingo.NewModel(llm).Generate), agent.WithOutputRetries(1), stillClock)
	u, res, err := agent.RunUnion(t.Context(), a, "Order A1 was charged twice.",
		agent.Member[Refund]("refund", "money back"), agent.Member[Escalation]("escalation", "a person looks"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (agent.Union{Member: "escalation", Value: Escalation{Team: "billing"}}); u != want {
		t.Errorf("union = %+v, want %+v", u, want)
	}
	var members []string
	for _, r := range res.Attempts {
		members = append(members, r.Member)
	}
	if want := []string{"", "escalation"}; !slices.Equal(members, want) {
		t.Errorf("rows' members = %q, want %q", members, want)
	}
	if n := len(llm.inputs); n != 2 || llm.inputs[1][len(llm.inputs[1])-1].Role != llms.ChatMessageTypeHuman {
		t.Errorf("the model was asked %d times, want twice, the second ending with the correction", n)
	}
}
