package gemini

import (
	"reflect"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

func TestThoughtPartsAreKeptApart(t *testing.T) {
	// includeThoughts: thought summaries arrive as parts marked thought,
	// before the answer, whole or streamed.
	srv := newFakeServer(t, okReply(response("STOP", `{"promptTokenCount":20,"candidatesTokenCount":9,"thoughtsTokenCount":30}`,
		`{"text":"**Weighing Paris** {\"tempC\": ?}","thought":true}`, `{"text":" then June.","thought":true}`, text(`{"city":"Paris","tempC":18}`))))
	a := agent.New(New(srv.client(t), "gemini-2.5-flash"), agent.WithOutputRetries(0))
	_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	msg := res.Messages[len(res.Messages)-1]
	if want := `**Weighing Paris** {"tempC": ?} then June.`; msg.Reasoning != want || msg.Content != `{"city":"Paris","tempC":18}` {
		t.Errorf("message = %+v, want the answer, and the reasoning %q apart", msg, want)
	}
	if got, want := res.Attempts[0].Thinking, (&enforce.Thinking{Bytes: len(msg.Reasoning)}); !reflect.DeepEqual(got, want) {
		t.Errorf("row's Thinking = %+v, want %+v", got, want)
	}
}

func TestThinkingToMaxTokensIsAnAnswerThatNeverCame(t *testing.T) {
	srv := newFakeServer(t,
		okReply(response("MAX_TOKENS", `{"promptTokenCount":20,"thoughtsTokenCount":100}`, `{"text":"Considering Paris","thought":true}`)),
		okReply(response("STOP", "", text(`{"city":"Paris","tempC":18}`))))
	a := agent.New(New(srv.client(t), "gemini-2.5-flash"), agent.WithOutputRetries(1))
	_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Attempts[0]; got.Stage != enforce.StageNoAnswer || !got.Truncated || got.Thinking == nil {
		t.Errorf("first row = %+v, want no-answer, truncated, with thinking", got)
	}
}
