package enforce_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// knownCity refuses Atlantis: a validator of one member.
var knownCity = enforce.NewValidator("known-city", func(_ context.Context, city string, _ enforce.Try) ([]enforce.Issue, error) {
	if city == "Atlantis" {
		return []enforce.Issue{{Message: "Atlantis is not on any map"}}, nil
	}
	return nil, nil
}).At("/city")

const forecastSchema = `{"type": "object", "required": ["city", "forecast"], "properties": {
	"city": {"type": "string"}, "forecast": {"type": "array", "items": {"type": "object", "properties": {"tempC": {"type": "number"}}}}}}`

func forecastAnswer(city string) string {
	var b strings.Builder
	b.WriteString(`{"city": "` + city + `", "forecast": [`)
	for i := range 200 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`{"tempC": 21}`)
	}
	b.WriteString("]}")
	return b.String()
}

func TestAValidatorOfOneMemberJudgesThatMember(t *testing.T) {
	s := withValidators(t, mustCompile(t, forecastSchema), knownCity)
	ce := checkError(t, s.Judge(t.Context(), enforce.Answer{Given: forecastAnswer("Atlantis")}).(*enforce.OutputError).Err)
	if ce.Path() != "/city" || ce.Issues[0].Keyword != "known-city" {
		t.Errorf("issues = %+v, want known-city at /city", ce.Issues)
	}
	if err := s.Judge(t.Context(), enforce.Answer{Given: forecastAnswer("Paris")}); err != nil {
		t.Errorf("Judge(Paris) = %v", err)
	}
	noCity := withValidators(t, mustCompile(t, `{"type": "object"}`), knownCity)
	if err := noCity.Judge(t.Context(), enforce.Answer{Given: `{"country": "x"}`}); err != nil {
		t.Errorf("an answer without the member: %v, want the validator not asked", err)
	}
}

// The validator is asked as soon as the city's value closes: the answer
// is cut at the city's closing quote, not after 4 KiB of forecast.
func TestAStreamValidatingCutsAtTheMembersClose(t *testing.T) {
	s := withValidators(t, mustCompile(t, forecastSchema), knownCity)
	answer := forecastAnswer("Atlantis")
	st := s.StreamValidating(t.Context(), enforce.Try{Attempt: 1, RetriesLeft: 2})
	read := 0
	var err error
	for i := 0; i < len(answer) && err == nil; i += 16 {
		var n int
		n, err = st.WriteString(answer[i:min(i+16, len(answer))])
		read += n
	}
	var ce *enforce.CheckError
	if !errors.As(err, &ce) || ce.Path() != "/city" || ce.Issues[0].Keyword != "known-city" {
		t.Fatalf("verdict = %v, want known-city at /city", err)
	}
	if want := strings.Index(answer, `Atlantis"`) + len(`Atlantis"`); read != want {
		t.Errorf("read %d bytes, want %d: up to the city's closing quote", read, want)
	}
	if got := st.Close(); got != err {
		t.Errorf("Close = %v, want the verdict", got)
	}
	// A plain Incremental leaves validators to the end.
	if _, err := s.Stream().WriteString(answer); err != nil {
		t.Errorf("Stream (no validators) failed early: %v", err)
	}
	ok := s.StreamValidating(t.Context(), enforce.Try{Attempt: 1})
	if _, err := ok.WriteString(forecastAnswer("Paris")); err != nil || ok.Close() != nil {
		t.Errorf("a passing answer: %v, %v", err, ok.Close())
	}
}

// A validator that cannot judge gives no early verdict: the answer's end
// decides.
func TestAFailingValidatorOfAMemberGivesNoEarlyVerdict(t *testing.T) {
	broken := enforce.NewValidator("broken", func(context.Context, string, enforce.Try) ([]enforce.Issue, error) {
		return nil, errors.New("catalogue down")
	}).At("/city")
	s := withValidators(t, mustCompile(t, forecastSchema), broken)
	if _, err := s.StreamValidating(t.Context(), enforce.Try{Attempt: 1}).WriteString(forecastAnswer("Paris")); err != nil {
		t.Errorf("early verdict %v from a validator that could not judge", err)
	}
}

// A validator of one member reads the same text streamed and at the
// answer's end: the member parsed and encoded again, not as written.
func TestAMemberValidatorReadsTheSameTextStreamedAndAtTheEnd(t *testing.T) {
	compact := enforce.NewValidator("compact", func(_ context.Context, raw json.RawMessage, _ enforce.Try) ([]enforce.Issue, error) {
		if strings.ContainsRune(string(raw), ' ') {
			return []enforce.Issue{{Message: "not compact: " + string(raw)}}, nil
		}
		return nil, nil
	}).At("/o")
	s := withValidators(t, mustCompile(t, `{"type": "object", "properties": {"o": {"type": "object"}}}`), compact)
	answer := `{"o":{"a": 1, "b": "<&>"}}`
	judged := s.Judge(t.Context(), enforce.Answer{Given: answer})
	_, streamed := s.StreamValidating(t.Context(), enforce.Try{Attempt: 1}).WriteString(answer)
	if (judged == nil) != (streamed == nil) {
		t.Errorf("Judge = %v, the incremental judge = %v: the validator read different texts", judged, streamed)
	}
}

// A JSON Pointer's array index is digits only (RFC 6901): "+0" names no
// item, so a validator of it is not asked.
func TestAPointerIndexWithASignNamesNoItem(t *testing.T) {
	asked := false
	v := enforce.NewValidator("v", func(context.Context, any, enforce.Try) ([]enforce.Issue, error) {
		asked = true
		return nil, nil
	}).At("/a/+0")
	s := withValidators(t, mustCompile(t, `{}`), v)
	if err := s.Judge(t.Context(), enforce.Answer{Given: `{"a": [1]}`}); err != nil || asked {
		t.Errorf("Judge = %v, asked %v; want the validator not asked", err, asked)
	}
}
