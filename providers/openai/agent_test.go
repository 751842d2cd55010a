package openai

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
		okReply(completion("It is sunny in Paris, about 18 degrees.")),
		okReply(completion(`{"city":"Paris","tempC":18}`)),
	)
	// Early abort off: the prose is read whole, as Generate would give it.
	a := agent.New(New(srv.client(), "gpt-4o-mini"), agent.WithOutputRetries(1), agent.WithEarlyAbort(false))

	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w, (Weather{City: "Paris", TempC: 18}); got != want {
		t.Errorf("answer = %+v, want %+v", got, want)
	}
	var outcomes []enforce.Outcome
	for _, r := range res.Attempts {
		outcomes = append(outcomes, r.Outcome)
	}
	if got, want := outcomes, []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomePassed}; !slices.Equal(got, want) {
		t.Errorf("attempt outcomes = %v, want %v", got, want)
	}
	if got, want := res.Attempts[0].Stage, enforce.StageJSONParse; got != want {
		t.Errorf("first row stage = %q, want %q", got, want)
	}
	if got, want := res.Usage, (agent.Usage{InputTokens: 20, OutputTokens: 10}); got != want {
		t.Errorf("usage = %+v, want %+v", got, want)
	}

	// The corrective turn went over the wire: the failed answer as the
	// assistant's, the correction as the user's.
	second, _ := decodeRequest(t, srv.requests()[1])
	roles := second.roles()
	if n := len(roles); n < 2 || roles[n-2] != "assistant" || roles[n-1] != "user" {
		t.Fatalf("second request roles = %v, want it to end with assistant, user", roles)
	}
	if got := string(second.Messages[len(roles)-2].Content); !strings.Contains(got, "sunny in Paris") {
		t.Errorf("assistant message = %s, want the failed answer", got)
	}
}

func TestAgentModelRetryRetriesARateLimitOnce(t *testing.T) {
	srv := newFakeServer(t,
		reply{Status: 429, Header: map[string]string{"Retry-After": "3"}, Body: errorBody("rate_limit_exceeded", "Rate limit reached")},
		okReply(completion(`{"city":"Paris","tempC":18}`)),
	)
	rec := &wiretest.Recorder{}
	var delays []time.Duration
	a := agent.New(New(srv.client(), "gpt-4o-mini"),
		agent.WithEvents(rec),
		agent.WithModelRetry(agent.RetryPolicy{Backoff: func(attempt int, err error) time.Duration {
			delays = append(delays, agent.DefaultBackoff(attempt, err))
			return 0
		}}))

	w, _, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w.City, "Paris"; got != want {
		t.Errorf("city = %q, want %q", got, want)
	}
	if got := len(srv.requests()); got != 2 {
		t.Errorf("server saw %d requests, want 2 (one 429, one retry)", got)
	}
	if got, want := delays, []time.Duration{3 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("DefaultBackoff would wait %v, want %v (the Retry-After)", got, want)
	}
	retries := rec.ModelRetries()
	if len(retries) != 1 {
		t.Fatalf("recorded %d model retries, want 1", len(retries))
	}
	got := retries[0]
	if got.ErrorKind != events.KindRateLimit || got.HTTPStatus != 429 || got.System != "openai" || got.Attempt != 1 || got.NextAttempt != 2 {
		t.Errorf("model retry = %+v, want rate_limit, HTTP 429, system openai, attempt 1 → 2", got)
	}
}

func TestAgentCutsADoomedAnswerOffMidStream(t *testing.T) {
	gone := make(chan struct{})
	// The first reply would go on; the server holds it open until the
	// client goes away.
	first := reply{Status: 200, Gone: gone, Events: []string{
		delta(`{"role":"assistant","content":"","refusal":null}`, ""),
		content("Sure! "), content("Here is "), content(`{"city":"Paris",`), content(`"tempC":18}`),
	}}
	srv := newFakeServer(t, first, okReply(completion(`{"city":"Paris","tempC":18}`)))
	a := agent.New(New(srv.client(), "gpt-4o-mini"), agent.WithOutputRetries(1))

	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	wiretest.WaitGone(t, gone)
	if got, want := w, (Weather{City: "Paris", TempC: 18}); got != want {
		t.Errorf("answer = %+v, want %+v", got, want)
	}
	var outcomes []enforce.Outcome
	for _, r := range res.Attempts {
		outcomes = append(outcomes, r.Outcome)
	}
	if got, want := outcomes, []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomePassed}; !slices.Equal(got, want) {
		t.Fatalf("attempt outcomes = %v, want %v", got, want)
	}
	row := res.Attempts[0]
	if row.Stage != enforce.StageJSONParse || row.Cut == nil {
		t.Fatalf("first row = %+v, want a json-parse failure that was cut", row)
	}

	// The corrective turn went out with what the model wrote up to the cut.
	reqs := srv.requests()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(reqs))
	}
	second, _ := decodeRequest(t, reqs[1])
	roles := second.roles()
	if n := len(roles); n < 2 || roles[n-2] != "assistant" || roles[n-1] != "user" {
		t.Fatalf("second request roles = %v, want it to end with assistant, user", roles)
	}
	var sent string
	if err := json.Unmarshal(second.Messages[len(roles)-2].Content, &sent); err != nil {
		t.Fatal(err)
	}
	if sent == "" || !strings.HasPrefix("Sure! Here is ", sent) || len(sent) != row.Cut.Bytes {
		t.Errorf("assistant message = %q, want the answer up to the cut (%d bytes of %q)", sent, row.Cut.Bytes, "Sure! Here is ")
	}
}
