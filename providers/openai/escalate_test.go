package openai

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// completionOf is a 200 body from model whose answer is content, with
// the usage given.
func completionOf(model, content string, in, out int) string {
	c, _ := json.Marshal(content)
	m, _ := json.Marshal(model)
	u, _ := json.Marshal(map[string]int{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out})
	return `{"id":"chatcmpl-e","object":"chat.completion","created":1700000000,"model":` + string(m) + `,
"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":` + string(c) + `}}],
"usage":` + string(u) + `}`
}

func TestAgentEscalatesToAStrongerModelOverTheWire(t *testing.T) {
	// A cheap model fails the contract twice at schema-validate; the run
	// moves on to a stronger one, which is sent the whole conversation
	// and passes. Each row names its model, and each model's tokens are
	// summed apart.
	cheap := newFakeServer(t,
		okReply(completionOf("gpt-4o-mini", `{"city":"Paris"}`, 40, 8)),
		okReply(completionOf("gpt-4o-mini", `{"city":"Paris","tempC":"warm"}`, 90, 12)))
	strong := newFakeServer(t, okReply(completionOf("gpt-4o", `{"city":"Paris","tempC":18}`, 160, 10)))
	// Early abort off: each reply is read to its usage, which a cut one
	// never reaches.
	ag := agent.New(New(cheap.client(), "gpt-4o-mini"), agent.WithOutputRetries(2), agent.WithEarlyAbort(false),
		agent.WithEscalation(agent.Escalation{Models: []agent.Model{New(strong.client(), "gpt-4o")}, AfterFailures: 2}),
		agent.WithPrices(map[string]agent.Price{"gpt-4o-mini": {Input: 0.15, Output: 0.6}, "gpt-4o": {Input: 2.5, Output: 10}}))
	w, res, err := agent.RunTyped[wiretest.Weather](context.Background(), ag, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if w.City != "Paris" || w.TempC != 18 {
		t.Errorf("answer %+v", w)
	}
	var by []string
	var stages []enforce.Stage
	for _, r := range res.Attempts {
		by = append(by, r.Provider+"/"+r.Model)
		stages = append(stages, r.Stage)
	}
	if want := []string{"openai/gpt-4o-mini", "openai/gpt-4o-mini", "openai/gpt-4o"}; !slices.Equal(by, want) {
		t.Errorf("rows written by %v, want %v", by, want)
	}
	if want := []enforce.Stage{enforce.StageSchemaValidate, enforce.StageSchemaValidate, ""}; !slices.Equal(stages, want) {
		t.Errorf("row stages %v, want %v", stages, want)
	}
	want := []agent.ModelSpend{
		{Provider: "openai", Model: "gpt-4o-mini", Requests: 2, Usage: agent.Usage{InputTokens: 130, OutputTokens: 20, Detailed: true}, Money: (130*0.15 + 20*0.6) / 1e6},
		{Provider: "openai", Model: "gpt-4o", Requests: 1, Usage: agent.Usage{InputTokens: 160, OutputTokens: 10, Detailed: true}, Money: (160*2.5 + 10*10) / 1e6},
	}
	if len(res.Models) != 2 {
		t.Fatalf("Models %+v, want two", res.Models)
	}
	for i := range want {
		got := res.Models[i]
		got.Usage.Detailed = want[i].Usage.Detailed // as the adapter reports it; not what is tested here
		if d := got.Money - want[i].Money; got.Provider != want[i].Provider || got.Model != want[i].Model ||
			got.Requests != want[i].Requests || got.Usage != want[i].Usage || d > 1e-12 || d < -1e-12 {
			t.Errorf("Models[%d] = %+v, want %+v", i, res.Models[i], want[i])
		}
	}
	if n := len(cheap.Requests()); n != 2 {
		t.Errorf("the cheap model got %d requests, want 2", n)
	}
	sent := adapter.Sent(t, strong.Server, 0)
	if got := sent.Shape(); len(got) < 5 {
		t.Fatalf("the strong model was sent %v, want the failed answers and corrections too", got)
	}
	var texts []string
	for _, m := range sent.Messages {
		if m.Role == "assistant" {
			texts = append(texts, m.Only(t, "text").Text)
		}
	}
	if want := []string{`{"city":"Paris"}`, `{"city":"Paris","tempC":"warm"}`}; !slices.Equal(texts, want) {
		t.Errorf("the strong model was sent the answers %q, want %q", texts, want)
	}
	if body := string(strong.Requests()[0]); !strings.Contains(body, `"model":"gpt-4o"`) {
		t.Errorf("the strong model's request names another model: %s", body)
	}
}
