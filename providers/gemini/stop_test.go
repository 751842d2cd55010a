package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

const cutAnswer = `{"city":"Paris","te`

func truncated(rows []enforce.Attempt) []bool {
	var out []bool
	for _, r := range rows {
		out = append(out, r.Truncated)
	}
	return out
}

func TestAgentThroughTheWire(t *testing.T) {
	t.Run("an answer cut off twice is exhausted with a retry left", func(t *testing.T) {
		srv := newFakeServer(t, okReply(response("MAX_TOKENS", "", text(cutAnswer))), okReply(response("MAX_TOKENS", "", text(cutAnswer))))
		a := agent.New(New(srv.client(t), "gemini-test"), agent.WithOutputRetries(2))
		_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
		var oe *enforce.OutputError
		if !errors.As(err, &oe) || !oe.Truncated {
			t.Fatalf("err = %v, want an *enforce.OutputError with Truncated", err)
		}
		if got, want := truncated(res.Attempts), []bool{true, true}; !slices.Equal(got, want) {
			t.Errorf("rows' Truncated = %v, want %v", got, want)
		}
		if got, want := res.Attempts[1].Outcome, enforce.OutcomeExhausted; got != want {
			t.Errorf("second row = %q, want %q", got, want)
		}
		second, _ := decodeRequest(t, srv.requests()[1])
		last := second.Contents[len(second.Contents)-1]
		if got := string(last.Parts[0]["text"]); !strings.Contains(got, "cut off at the output length limit") {
			t.Errorf("corrective message = %s, want it to say the answer was cut off", got)
		}
	})

	t.Run("an answer cut off, then complete, passes", func(t *testing.T) {
		srv := newFakeServer(t, okReply(response("MAX_TOKENS", "", text(cutAnswer))), okReply(answer(`{"city":"Paris","tempC":18}`)))
		a := agent.New(New(srv.client(t), "gemini-test"), agent.WithOutputRetries(1))
		w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := w, (Weather{City: "Paris", TempC: 18}); got != want {
			t.Errorf("answer = %+v, want %+v", got, want)
		}
		if got, want := truncated(res.Attempts), []bool{true, false}; !slices.Equal(got, want) {
			t.Errorf("rows' Truncated = %v, want %v", got, want)
		}
	})

	t.Run("a function call cut off at max tokens is not run, and the model is told", func(t *testing.T) {
		srv := newFakeServer(t, okReply(response("MAX_TOKENS", "", funcCall("fc-cut", "weather", `{"city":"Par"}`))), okReply(answer(`{"city":"Paris","tempC":18}`)))
		ran := false
		tool := agent.NewTool("weather", "Current weather for a city.", func(context.Context, struct {
			City string `json:"city"`
		}) (string, error) {
			ran = true
			return "18°C", nil
		})
		a := agent.New(New(srv.client(t), "gemini-test"), agent.WithTools(tool))
		if _, _, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?"); err != nil {
			t.Fatal(err)
		}
		if ran {
			t.Error("the tool ran with cut-off arguments")
		}
		second, _ := decodeRequest(t, srv.requests()[1])
		last := second.Contents[len(second.Contents)-1]
		var fr struct {
			ID       string            `json:"id"`
			Name     string            `json:"name"`
			Response map[string]string `json:"response"`
		}
		if err := json.Unmarshal(last.Parts[0]["functionResponse"], &fr); err != nil {
			t.Fatalf("last content = %+v: %v", last, err)
		}
		if fr.ID != "fc-cut" || fr.Name != "weather" || !strings.Contains(fr.Response["output"], "cut off") {
			t.Errorf("functionResponse = %+v, want one for fc-cut saying it was cut off", fr)
		}
	})

	for _, tt := range []struct {
		name, body, text string
		stop             agent.StopReason
	}{
		{"a safety stop", response("SAFETY", "", text(`{"city":`)), `{"city":`, agent.StopContentFilter},
		// Streamed, the stop comes with the last chunk: what came before it
		// must not be doomed already, or early abort cuts it first.
		{"a recitation stop", response("RECITATION", "", text(`{"city":"Par`)), `{"city":"Par`, agent.StopContentFilter},
		{"a safety stop with nothing kept, as Gemini streams it", response("SAFETY", ""), "", agent.StopContentFilter},
		{"a blocked prompt", `{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"}}`, "", agent.StopContentFilter},
	} {
		t.Run(tt.name+" ends the run with a RefusalError, unjudged", func(t *testing.T) {
			srv := newFakeServer(t, okReply(tt.body))
			a := agent.New(New(srv.client(t), "gemini-test"), agent.WithOutputRetries(2))
			_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
			var re *agent.RefusalError
			if !errors.As(err, &re) || re.Stop != tt.stop || re.Text != tt.text {
				t.Fatalf("err = %#v, want an *agent.RefusalError %q with text %q", err, tt.stop, tt.text)
			}
			if len(res.Attempts) != 1 || res.Attempts[0].Withheld != string(tt.stop) || res.Attempts[0].Stage != "" {
				t.Errorf("rows = %+v, want one unjudged row withheld for %q", res.Attempts, tt.stop)
			}
		})
	}
}

func TestAgentCutsADoomedOutputToolCallOffMidStream(t *testing.T) {
	gone := make(chan struct{})
	// The call gives city a number; the server holds the reply open until
	// the client goes away.
	first := reply{Status: 200, Gone: gone, Events: []string{
		event(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"final_result","args":{"city":42,"tempC":18}}}]},"index":0}]}`),
	}}
	srv := newFakeServer(t, first, okReply(answerCall("final_result", `{"city":"Paris","tempC":18}`)))
	a := agent.New(New(srv.client(t), "gemini-test"), agent.WithOutputTool("final_result"), agent.WithOutputRetries(1))
	w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	wiretest.WaitGone(t, gone)
	if got, want := w, (Weather{City: "Paris", TempC: 18}); got != want {
		t.Errorf("answer = %+v, want %+v", got, want)
	}
	if len(res.Attempts) != 2 || res.Attempts[1].Outcome != enforce.OutcomePassed {
		t.Fatalf("rows = %+v, want a cut row, then a pass", res.Attempts)
	}
	row := res.Attempts[0]
	if row.Outcome != enforce.OutcomeRetried || row.Stage != enforce.StageSchemaValidate || row.Path != "/city" || row.Cut == nil {
		t.Fatalf("first row = %+v, want /city failing at schema-validate, cut", row)
	}
	// The corrective turn went out as the call's result.
	second, _ := decodeRequest(t, srv.requests()[1])
	n := len(second.Contents)
	asked, corr := second.Contents[n-2], second.Contents[n-1]
	if asked.Role != "model" || asked.Parts[0]["functionCall"] == nil {
		t.Errorf("second request's model content = %+v, want the call", asked)
	}
	var fr struct {
		ID       string            `json:"id"`
		Name     string            `json:"name"`
		Response map[string]string `json:"response"`
	}
	if err := json.Unmarshal(corr.Parts[0]["functionResponse"], &fr); err != nil {
		t.Fatalf("correction = %+v: %v", corr, err)
	}
	if corr.Role != "user" || fr.Name != "final_result" || !strings.Contains(fr.Response["output"], "stopped reading your previous answer") {
		t.Errorf("correction = %+v, want final_result's result saying the answer was stopped", fr)
	}
}
