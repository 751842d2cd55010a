package wiretest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
)

// The scenarios below run the agent over the adapter: what the agent
// decides from a reply, and what its next request carries over the wire.

// paris is the answer the scenarios' runs end with.
var paris = Weather{City: "Paris", TempC: 18}

func outcomes(rows []enforce.Attempt) []enforce.Outcome {
	var out []enforce.Outcome
	for _, r := range rows {
		out = append(out, r.Outcome)
	}
	return out
}

func truncatedRows(rows []enforce.Attempt) []bool {
	var out []bool
	for _, r := range rows {
		out = append(out, r.Truncated)
	}
	return out
}

// weatherTool is a weather tool that notes whether it ran.
func weatherTool(ran *bool) agent.Tool {
	return agent.NewTool("weather", "Current weather for a city.", func(context.Context, struct {
		City string `json:"city"`
	}) (string, error) {
		*ran = true
		return "18°C", nil
	})
}

// AgentRetriesProse checks that an answer in prose (prose, a reply
// whose text is "It is sunny in Paris, about 18 degrees.") is retried at
// json-parse through the adapter, read whole as Generate gives it, and
// that the run passes on answer (a Weather, Paris at 18°C) with usage
// summed over both calls. The corrective turn goes over the wire: the
// failed answer as the assistant's, the correction as the user's. It
// returns the run's result and the events it recorded, for the checks a
// provider adds.
func AgentRetriesProse(t *testing.T, a Adapter, prose, answer Reply, usage agent.Usage) (*agent.Result, *Recorder) {
	srv := a.Server(t, prose, answer)
	rec := &Recorder{}
	// Early abort off: the prose is read whole, as Generate would give it.
	ag := agent.New(a.Model(t, srv), agent.WithOutputRetries(1), agent.WithEarlyAbort(false), agent.WithEvents(rec))
	w, res, err := agent.RunTyped[Weather](context.Background(), ag, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if w != paris {
		t.Errorf("answer = %+v, want %+v", w, paris)
	}
	if got, want := outcomes(res.Attempts), []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomePassed}; !slices.Equal(got, want) {
		t.Fatalf("row outcomes = %v, want %v", got, want)
	}
	if got, want := res.Attempts[0].Stage, enforce.StageJSONParse; got != want {
		t.Errorf("first row stage = %q, want %q", got, want)
	}
	if got := res.Usage; got != usage {
		t.Errorf("usage = %+v, want %+v", got, usage)
	}
	second := a.Sent(t, srv, 1)
	n := len(second.Messages)
	if n < 2 || second.Messages[n-2].Role != "assistant" || second.Messages[n-1].Role != "user" {
		t.Fatalf("second request = %v, want it to end with the assistant's, then the user's", second.Shape())
	}
	if got := second.Messages[n-2].Only(t, "text").Text; !strings.Contains(got, "sunny in Paris") {
		t.Errorf("assistant message = %q, want the failed answer", got)
	}
	second.Messages[n-1].Only(t, "text")
	return res, rec
}

// AgentRetriesARateLimit checks that agent.WithModelRetry retries a rate
// limit (limit) once, that agent.DefaultBackoff would wait delay (what
// limit says), and that the retry is recorded with the failure's kind,
// status and system; the run passes on answer.
func AgentRetriesARateLimit(t *testing.T, a Adapter, limit Reply, delay time.Duration, answer Reply) {
	srv := a.Server(t, limit, answer)
	rec := &Recorder{}
	var delays []time.Duration
	ag := agent.New(a.Model(t, srv),
		agent.WithEvents(rec),
		agent.WithModelRetry(agent.RetryPolicy{Backoff: func(attempt int, err error) time.Duration {
			delays = append(delays, agent.DefaultBackoff(attempt, err))
			return 0
		}}))
	w, _, err := agent.RunTyped[Weather](context.Background(), ag, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w.City, "Paris"; got != want {
		t.Errorf("city = %q, want %q", got, want)
	}
	if got := len(srv.Requests()); got != 2 {
		t.Errorf("server saw %d requests, want 2 (one 429, one retry)", got)
	}
	if got, want := delays, []time.Duration{delay}; !slices.Equal(got, want) {
		t.Errorf("DefaultBackoff would wait %v, want %v (what the provider said)", got, want)
	}
	retries := rec.ModelRetries()
	if len(retries) != 1 {
		t.Fatalf("recorded %d model retries, want 1", len(retries))
	}
	got := retries[0]
	if got.ErrorKind != events.KindRateLimit || got.HTTPStatus != 429 || got.System != a.System || got.Attempt != 1 || got.NextAttempt != 2 {
		t.Errorf("model retry = %+v, want rate_limit, HTTP 429, system %s, attempt 1 → 2", got, a.System)
	}
}

// AgentCutsADoomedAnswer checks that the agent cuts an answer off
// mid-stream once it is doomed: the server sends opening, the text
// "Sure! Here is " and then a Weather's JSON, and holds the reply open
// until the client goes. The row says it was cut, and the corrective
// turn goes out with what the model wrote up to the cut; the run passes
// on answer. It returns the run's result.
func AgentCutsADoomedAnswer(t *testing.T, a Adapter, opening []string, answer Reply) *agent.Result {
	gone := make(chan struct{})
	srv := a.Server(t, Reply{Status: 200, Gone: gone, Events: opening}, answer)
	ag := agent.New(a.Model(t, srv), agent.WithOutputRetries(1))
	w, res, err := agent.RunTyped[Weather](context.Background(), ag, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	WaitGone(t, gone)
	if w != paris {
		t.Errorf("answer = %+v, want %+v", w, paris)
	}
	if got, want := outcomes(res.Attempts), []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomePassed}; !slices.Equal(got, want) {
		t.Fatalf("row outcomes = %v, want %v", got, want)
	}
	row := res.Attempts[0]
	if row.Stage != enforce.StageJSONParse || row.Cut == nil {
		t.Fatalf("first row = %+v, want a json-parse failure that was cut", row)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("server saw %d requests, want 2", n)
	}
	second := a.Sent(t, srv, 1)
	n := len(second.Messages)
	if n < 2 || second.Messages[n-2].Role != "assistant" || second.Messages[n-1].Role != "user" {
		t.Fatalf("second request = %v, want it to end with the assistant's, then the user's", second.Shape())
	}
	if sent := second.Messages[n-2].Only(t, "text").Text; sent == "" || !strings.HasPrefix("Sure! Here is ", sent) || len(sent) != row.Cut.Bytes {
		t.Errorf("assistant message = %q, want the answer up to the cut (%d bytes of %q)", sent, row.Cut.Bytes, "Sure! Here is ")
	}
	return res
}

// AgentTruncatedAnswers checks what the agent makes of an answer
// truncated at the output limit (truncated, a reply of a Weather's JSON
// short of its end, its stop the provider's for the limit): truncated
// twice, the run is exhausted with a retry left, and the correction says
// the answer was truncated at the limit; truncated, then whole (answer),
// the run passes.
func AgentTruncatedAnswers(t *testing.T, a Adapter, truncated, answer Reply) {
	t.Run("an answer truncated twice is exhausted with a retry left", func(t *testing.T) {
		srv := a.Server(t, truncated, truncated)
		_, res, err := agent.RunTyped[Weather](context.Background(), agent.New(a.Model(t, srv), agent.WithOutputRetries(2)), "Weather in Paris?")
		var oe *enforce.OutputError
		if !errors.As(err, &oe) || !oe.Truncated {
			t.Fatalf("err = %v, want an *enforce.OutputError with Truncated", err)
		}
		if got, want := truncatedRows(res.Attempts), []bool{true, true}; !slices.Equal(got, want) {
			t.Errorf("rows' Truncated = %v, want %v", got, want)
		}
		if got, want := res.Attempts[1].Outcome, enforce.OutcomeExhausted; got != want {
			t.Errorf("second row = %q, want %q", got, want)
		}
		last := a.Sent(t, srv, 1).Last(t)
		if n := len(last.Parts); last.Role != "user" || n == 0 || last.Parts[n-1].Kind != "text" ||
			!strings.Contains(last.Parts[n-1].Text, "truncated at the output length limit") {
			t.Errorf("last message = %+v, want the user's correction saying the answer was truncated", last)
		}
	})
	t.Run("an answer truncated, then complete, passes", func(t *testing.T) {
		srv := a.Server(t, truncated, answer)
		w, res, err := agent.RunTyped[Weather](context.Background(), agent.New(a.Model(t, srv), agent.WithOutputRetries(1)), "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if w != paris {
			t.Errorf("answer = %+v, want %+v", w, paris)
		}
		if got, want := truncatedRows(res.Attempts), []bool{true, false}; !slices.Equal(got, want) {
			t.Errorf("rows' Truncated = %v, want %v", got, want)
		}
	})
}

// AgentTruncatedCall checks that a call of the weather tool truncated
// at the output limit (truncated, the call's wire ID id) is not run, and
// that the model is told: the next request's last message is the call's
// result alone, saying it was truncated. The run passes on answer.
func AgentTruncatedCall(t *testing.T, a Adapter, truncated Reply, id string, answer Reply) {
	t.Run("a tool call truncated at the output limit is not run, and the model is told", func(t *testing.T) {
		srv := a.Server(t, truncated, answer)
		ran := false
		ag := agent.New(a.Model(t, srv), agent.WithTools(weatherTool(&ran)))
		if _, _, err := agent.RunTyped[Weather](context.Background(), ag, "Weather in Paris?"); err != nil {
			t.Fatal(err)
		}
		if ran {
			t.Error("the tool ran with truncated arguments")
		}
		r := a.Sent(t, srv, 1).Last(t).Result(t)
		if r.ID != id || !strings.Contains(r.Text, "truncated") || (a.NamesResults && r.Name != "weather") {
			t.Errorf("last message's result = %+v, want one for %s saying it was truncated", r, id)
		}
	})
}

// Withheld is a reply that gives no answer, and what the run must say of
// it.
type Withheld struct {
	Name  string
	Reply Reply
	Stop  agent.StopReason
	Raw   string // the provider's own stop reason
	Text  string // what the provider gave instead of an answer
	// Options are the agent's, beside two output retries.
	Options []agent.Option
}

// AgentWithheld checks that each case's reply, a refusal or a filtered
// reply, ends the run with an *agent.RefusalError carrying the stop, its
// raw value and the text, after one row left unjudged.
func AgentWithheld(t *testing.T, a Adapter, cases []Withheld) {
	for _, tt := range cases {
		t.Run(tt.Name+" ends the run with a RefusalError, unjudged", func(t *testing.T) {
			srv := a.Server(t, tt.Reply)
			ag := agent.New(a.Model(t, srv), append([]agent.Option{agent.WithOutputRetries(2)}, tt.Options...)...)
			_, res, err := agent.RunTyped[Weather](context.Background(), ag, "Weather in Paris?")
			var re *agent.RefusalError
			if !errors.As(err, &re) || re.Stop != tt.Stop || re.Raw != tt.Raw || re.Text != tt.Text {
				t.Fatalf("err = %#v, want an *agent.RefusalError %q (%s) with text %q", err, tt.Stop, tt.Raw, tt.Text)
			}
			if len(res.Attempts) != 1 || res.Attempts[0].Withheld != string(tt.Stop) || res.Attempts[0].Stage != "" {
				t.Errorf("rows = %+v, want one unjudged row withheld for %q", res.Attempts, tt.Stop)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests, want 1: a withheld answer is not asked again", n)
			}
		})
	}
}

// Ended is a reply body and what Generate must say of how it ended.
type Ended struct {
	Name    string
	Body    string
	Stop    agent.StopReason
	Raw     string
	Content string
}

// StopReasons checks that Generate says why each case's reply ended: the
// stop reason, the provider's own value, and the content kept.
func StopReasons(t *testing.T, a Adapter, cases []Ended) {
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			srv := a.Server(t, OK(tt.Body))
			resp, err := a.Model(t, srv).Generate(context.Background(), Turn)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := resp.Stop, tt.Stop; got != want {
				t.Errorf("Stop = %q, want %q", got, want)
			}
			if got, want := resp.StopRaw, tt.Raw; got != want {
				t.Errorf("StopRaw = %q, want %q", got, want)
			}
			if got, want := resp.Message.Content, tt.Content; got != want {
				t.Errorf("content = %q, want %q", got, want)
			}
		})
	}
}
