package fantasy_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	charm "charm.land/fantasy"

	"github.com/enforcer-go/enforcer/enforce"
)

type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
}

const (
	fenced = "```json\n{\"city\": \"Paris\", \"tempC\": 21}\n```"
	valid  = `{"city": "Paris", "tempC": 21}`
)

func weatherSchema(t testing.TB) *enforce.Schema {
	t.Helper()
	s, err := enforce.SchemaFor[Weather]()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// scripted is a fantasy.LanguageModel that answers from a script of
// texts: Generate gives the next whole, Stream in pieces of 8 bytes.
// fantasy ships no scripted model outside its tests, so this is the
// smallest one its interface allows. Object calls go through fantasy's
// own text mode (object.GenerateWithText) over Generate.
type scripted struct {
	mu      sync.Mutex
	replies []string
	prompts []charm.Prompt
}

func (m *scripted) next(p charm.Prompt) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.prompts = append(m.prompts, p)
	if len(m.replies) == 0 {
		return "", errors.New("scripted: no reply left")
	}
	r := m.replies[0]
	m.replies = m.replies[1:]
	return r, nil
}

func (m *scripted) Generate(_ context.Context, call charm.Call) (*charm.Response, error) {
	r, err := m.next(call.Prompt)
	if err != nil {
		return nil, err
	}
	return &charm.Response{Content: charm.ResponseContent{charm.TextContent{Text: r}}, FinishReason: charm.FinishReasonStop,
		Usage: charm.Usage{InputTokens: 10, OutputTokens: 5}}, nil
}

func (m *scripted) Stream(_ context.Context, call charm.Call) (charm.StreamResponse, error) {
	r, err := m.next(call.Prompt)
	if err != nil {
		return nil, err
	}
	return func(yield func(charm.StreamPart) bool) {
		if !yield(charm.StreamPart{Type: charm.StreamPartTypeTextStart, ID: "t"}) {
			return
		}
		for len(r) > 0 {
			n := min(8, len(r))
			if !yield(charm.StreamPart{Type: charm.StreamPartTypeTextDelta, ID: "t", Delta: r[:n]}) {
				return
			}
			r = r[n:]
		}
		yield(charm.StreamPart{Type: charm.StreamPartTypeFinish, FinishReason: charm.FinishReasonStop, Usage: charm.Usage{InputTokens: 10, OutputTokens: 5}})
	}, nil
}

func (m *scripted) GenerateObject(context.Context, charm.ObjectCall) (*charm.ObjectResponse, error) {
	return nil, errors.New("scripted: use object.GenerateWithText")
}

func (m *scripted) StreamObject(context.Context, charm.ObjectCall) (charm.ObjectStreamResponse, error) {
	return nil, errors.New("scripted: use object.StreamWithText")
}

func (m *scripted) Provider() string { return "scripted" }
func (m *scripted) Model() string    { return "script" }
