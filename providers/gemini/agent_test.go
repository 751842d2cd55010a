package gemini

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

func TestAgentRetriesAProseAnswerThroughTheAdapter(t *testing.T) {
	res, rec := wiretest.AgentRetriesProse(t, adapter,
		okReply(response("STOP", `{"promptTokenCount":100,"candidatesTokenCount":12,"cachedContentTokenCount":64,"thoughtsTokenCount":20,"totalTokenCount":132}`,
			text("It is sunny in Paris, about 18 degrees."))),
		okReply(response("STOP", `{"promptTokenCount":140,"candidatesTokenCount":9,"cachedContentTokenCount":100,"totalTokenCount":149}`,
			text(`{"city":"Paris","tempC":18}`))),
		agent.Usage{InputTokens: 240, OutputTokens: 41, CachedTokens: 164, ReasoningTokens: 20, Detailed: true})
	if got, want := res.Attempts[0].Cost, (enforce.Cost{InputTokens: 100, OutputTokens: 32, CachedTokens: 64, ReasoningTokens: 20, LatencyMs: res.Attempts[0].LatencyMs}); got != want {
		t.Errorf("row 1 cost = %+v, want %+v", got, want)
	}
	// turn/completed carries the turn's usage: Gemini reports all four counts.
	var done *events.TurnCompleted
	for _, ev := range rec.Events() {
		if tc, ok := ev.(events.TurnCompleted); ok {
			done = &tc
		}
	}
	if done == nil || done.Usage == nil {
		t.Fatalf("turn/completed = %+v, want it with usage", done)
	}
	if got, want := *done.Usage, (events.Usage{InputTokens: 240, OutputTokens: 41, CachedTokens: 164, ReasoningTokens: 20}); got != want {
		t.Errorf("turn/completed usage = %+v, want %+v", got, want)
	}
}

func TestAgentModelRetryWaitsTheRetryInfoDelay(t *testing.T) {
	wiretest.AgentRetriesARateLimit(t, adapter,
		reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted", retryInfo("4s"))},
		4*time.Second, okReply(answer(`{"city":"Paris","tempC":18}`)))
}

func TestAgentCutsADoomedAnswerOffMidStream(t *testing.T) {
	wiretest.AgentCutsADoomedAnswer(t, adapter, []string{
		textChunk("Sure! "), textChunk("Here is "), textChunk(`{"city":"Paris",`),
	}, okReply(answer(`{"city":"Paris","tempC":18}`)))
}

func TestAgentRunsAFunctionCallAndSendsItsResultBack(t *testing.T) {
	srv := newFakeServer(t,
		okReply(response("STOP", "", `{"functionCall":{"name":"lookup","args":{"city":"Paris"}},"thoughtSignature":"c2lnLTE="}`)),
		okReply(answer(`{"city":"Paris","tempC":18}`)),
	)
	lookup := agent.NewTool("lookup", "the weather of a city", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return in.City + ": 18C", nil
	})
	a := agent.New(New(srv.client(t), "gemini-2.5-flash"), agent.WithTools(lookup))
	w, _, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if w.TempC != 18 {
		t.Errorf("answer = %+v", w)
	}
	second, _ := decodeRequest(t, srv.requests()[1])
	n := len(second.Contents)
	callPart, resultPart := second.Contents[n-2].Parts[0], second.Contents[n-1].Parts[0]
	if got, want := string(callPart["thoughtSignature"]), `"c2lnLTE="`; got != want {
		t.Errorf("thoughtSignature sent back = %s, want %s", got, want)
	}
	var fr struct {
		ID       string            `json:"id"`
		Name     string            `json:"name"`
		Response map[string]string `json:"response"`
	}
	if err := json.Unmarshal(resultPart["functionResponse"], &fr); err != nil {
		t.Fatal(err)
	}
	if fr.ID != "" || fr.Name != "lookup" || fr.Response["output"] != "Paris: 18C" {
		t.Errorf("functionResponse = %+v, want lookup's result, no made-up id", fr)
	}
}
