package gemini

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

func TestAgentRetriesAProseAnswerThroughTheAdapter(t *testing.T) {
	srv := newFakeServer(t,
		okReply(response("STOP", `{"promptTokenCount":100,"candidatesTokenCount":12,"cachedContentTokenCount":64,"thoughtsTokenCount":20,"totalTokenCount":132}`,
			text("It is sunny in Paris, about 18 degrees."))),
		okReply(response("STOP", `{"promptTokenCount":140,"candidatesTokenCount":9,"cachedContentTokenCount":100,"totalTokenCount":149}`,
			text(`{"city":"Paris","tempC":18}`))),
	)
	rec := &wiretest.Recorder{}
	// Early abort off: the prose is read whole, as Generate would give it.
	a := agent.New(New(srv.client(t), "gemini-2.5-flash"), agent.WithOutputRetries(1), agent.WithEarlyAbort(false), agent.WithEvents(rec))
	w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w, (Weather{City: "Paris", TempC: 18}); got != want {
		t.Errorf("answer = %+v, want %+v", got, want)
	}
	if len(res.Attempts) != 2 || res.Attempts[0].Outcome != enforce.OutcomeRetried || res.Attempts[0].Stage != enforce.StageJSONParse {
		t.Fatalf("rows = %+v, want a json-parse retry, then a pass", res.Attempts)
	}
	if got, want := res.Usage, (agent.Usage{InputTokens: 240, OutputTokens: 41, CachedTokens: 164, ReasoningTokens: 20, Detailed: true}); got != want {
		t.Errorf("usage = %+v, want %+v", got, want)
	}
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
	// The corrective turn went over the wire: the failed answer as the
	// model's, the correction as the user's.
	second, _ := decodeRequest(t, srv.requests()[1])
	roles := second.roles()
	if n := len(roles); n < 2 || roles[n-2] != "model" || roles[n-1] != "user" {
		t.Fatalf("second request roles = %v, want it to end with model, user", roles)
	}
	if got := string(second.Contents[len(roles)-2].Parts[0]["text"]); !strings.Contains(got, "sunny in Paris") {
		t.Errorf("model content = %s, want the failed answer", got)
	}
}

func TestAgentModelRetryWaitsTheRetryInfoDelay(t *testing.T) {
	srv := newFakeServer(t,
		reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted", retryInfo("4s"))},
		okReply(answer(`{"city":"Paris","tempC":18}`)),
	)
	rec := &wiretest.Recorder{}
	var delays []time.Duration
	a := agent.New(New(srv.client(t), "gemini-2.5-flash"),
		agent.WithEvents(rec),
		agent.WithModelRetry(agent.RetryPolicy{Backoff: func(attempt int, err error) time.Duration {
			delays = append(delays, agent.DefaultBackoff(attempt, err))
			return 0
		}}))
	if _, _, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?"); err != nil {
		t.Fatal(err)
	}
	if got, want := delays, []time.Duration{4 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("DefaultBackoff would wait %v, want %v (the RetryInfo delay)", got, want)
	}
	var retries []events.ModelRetry
	for _, ev := range rec.Events() {
		if mr, ok := ev.(events.ModelRetry); ok {
			retries = append(retries, mr)
		}
	}
	if len(retries) != 1 || retries[0].ErrorKind != events.KindRateLimit || retries[0].HTTPStatus != 429 || retries[0].System != System {
		t.Errorf("model retries = %+v, want one: rate_limit, HTTP 429, system gemini", retries)
	}
}

func TestAgentCutsADoomedAnswerOffMidStream(t *testing.T) {
	gone := make(chan struct{})
	// The first reply would go on; the server holds it open until the
	// client goes away.
	first := reply{Status: 200, Gone: gone, Events: []string{
		textChunk("Sure! "), textChunk("Here is "), textChunk(`{"city":"Paris",`),
	}}
	srv := newFakeServer(t, first, okReply(answer(`{"city":"Paris","tempC":18}`)))
	a := agent.New(New(srv.client(t), "gemini-2.5-flash"), agent.WithOutputRetries(1))
	w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	wiretest.WaitGone(t, gone)
	if got, want := w, (Weather{City: "Paris", TempC: 18}); got != want {
		t.Errorf("answer = %+v, want %+v", got, want)
	}
	if len(res.Attempts) != 2 || res.Attempts[0].Cut == nil || res.Attempts[0].Stage != enforce.StageJSONParse {
		t.Fatalf("rows = %+v, want a json-parse failure that was cut, then a pass", res.Attempts)
	}
	second, _ := decodeRequest(t, srv.requests()[1])
	n := len(second.Contents)
	var sent string
	if err := json.Unmarshal(second.Contents[n-2].Parts[0]["text"], &sent); err != nil {
		t.Fatal(err)
	}
	if sent == "" || !strings.HasPrefix("Sure! Here is ", sent) || len(sent) != res.Attempts[0].Cut.Bytes {
		t.Errorf("model content = %q, want the answer up to the cut (%d bytes)", sent, res.Attempts[0].Cut.Bytes)
	}
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
