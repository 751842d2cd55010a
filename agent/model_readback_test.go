package agent_test

import (
	"context"
	"encoding/json"
	"iter"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// readBackStream streams one answer and says, in its last chunk, which
// members its adapter read as left out.
type readBackStream struct{ text string }

func (m readBackStream) Generate(context.Context, agent.Request) (agent.Response, error) {
	return agent.Response{Message: agent.Message{Content: m.text}, Stop: agent.StopComplete, ReadBack: []string{"/sky"}}, nil
}

func (m readBackStream) GenerateStream(context.Context, agent.Request) iter.Seq2[agent.Chunk, error] {
	return func(yield func(agent.Chunk, error) bool) {
		half := len(m.text) / 2
		if yield(agent.Chunk{Text: m.text[:half]}, nil) {
			yield(agent.Chunk{Text: m.text[half:], ReadBack: []string{"/sky"}, Stop: agent.StopComplete}, nil)
		}
	}
}

type Sky struct {
	City string `json:"city"`
	Sky  string `json:"sky,omitempty"`
}

func TestTheRowNamesTheMembersAnAdapterReadBack(t *testing.T) {
	for _, tt := range []struct {
		name  string
		model agent.Model
	}{
		{"from Generate's response", agent.ModelFunc(readBackStream{`{"city":"Paris"}`}.Generate)},
		{"from a stream's chunk", readBackStream{`{"city":"Paris"}`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, res, err := agent.RunTyped[Sky](context.Background(), agent.New(tt.model, agent.WithOutputRetries(1)), "sky?")
			if err != nil {
				t.Fatal(err)
			}
			row := res.Attempts[0]
			if row.Outcome != enforce.OutcomePassed || row.ReadBack == nil || !slices.Equal(row.ReadBack.Members, []string{"/sky"}) {
				t.Fatalf("row = %+v (readBack %+v), want passed with /sky read back", row, row.ReadBack)
			}
			b, _ := json.Marshal(row)
			if !strings.Contains(string(b), `"readBack":{"members":["/sky"]}`) {
				t.Errorf("row JSON %s has no readBack", b)
			}
		})
	}
	t.Run("a reply with nothing read back has none on its row", func(t *testing.T) {
		m := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
			return agent.Response{Message: agent.Message{Content: `{"city":"Paris"}`}}, nil
		})
		_, res, err := agent.RunTyped[Sky](context.Background(), agent.New(m, agent.WithOutputRetries(1)), "sky?")
		if err != nil {
			t.Fatal(err)
		}
		if rb := res.Attempts[0].ReadBack; rb != nil {
			t.Errorf("readBack = %+v, want nil", rb)
		}
	})
}
