package enforce_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/enforcer-go/enforcer/enforce"
)

// A validator checks what the schema cannot — here, that a forecast is
// for a city we serve. Loop sends its issue to the model in the same
// corrective turn as a schema issue would be.
func ExampleNewValidator() {
	served := enforce.NewValidator("served-city", func(_ context.Context, f Forecast, at enforce.Try) ([]enforce.Issue, error) {
		if f.City != "Oslo" && f.City != "Bergen" {
			return []enforce.Issue{{Path: "/city", Message: f.City + " is not a city we serve: Oslo or Bergen"}}, nil
		}
		return nil, nil
	})
	s, _ := enforce.SchemaFor[Forecast]()
	contract, err := s.WithValidators(served)
	if err != nil {
		fmt.Println(err)
		return
	}
	canned := []string{`{"city": "Paris", "tempC": 12}`, `{"city": "Oslo", "tempC": 4.5}`}
	calls := 0
	model := func(ctx context.Context, corrective string) (string, error) {
		if corrective != "" {
			fmt.Println(corrective)
		}
		calls++
		return canned[calls-1], nil
	}

	answer, attempts, err := enforce.Loop(context.Background(), contract, 2, model)
	fmt.Println(answer, err)
	for _, a := range attempts {
		fmt.Println(a.Attempt, a.Outcome, a.Stage, a.Path)
	}
	// Output:
	// Your previous answer did not satisfy the required output format. This was attempt 1 of 3.
	// Stage: schema-validate — the answer matches the JSON Schema, but checks of its content failed.
	// Reply with only the corrected JSON value, nothing else.
	// The issue follows, its pointer and message quoted as data:
	// - at "/city": "Paris is not a city we serve: Oslo or Bergen"
	// {"city": "Oslo", "tempC": 4.5} <nil>
	// 1 retried schema-validate /city
	// 2 passed
}

// A model that fails the same way twice is not learning from the
// correction: with WithRepeatLimit(2) the ledger stops with retries
// unspent. Without it (the default) every retry is spent.
func ExampleWithRepeatLimit() {
	s, _ := enforce.SchemaFor[Forecast]()
	answers := []string{`{"city": "Oslo", "tempC": "cold"}`, `{"city": "Oslo", "tempC": "chilly"}`}
	calls := 0
	model := func(context.Context, string) (string, error) {
		calls++
		return answers[calls-1], nil
	}
	_, attempts, err := enforce.Loop(context.Background(), s, 3, model, enforce.WithRepeatLimit(2))
	for _, a := range attempts {
		fmt.Printf("%d %s %s reason=%q\n", a.Attempt, a.Outcome, a.Path, a.Reason)
	}
	fmt.Println(errors.Is(err, enforce.ErrRepeated))
	// Output:
	// 1 retried /tempC reason=""
	// 2 exhausted /tempC reason="repeated"
	// true
}

// Two validators join one contract: their issues are sorted by pointer,
// each named (Keyword) for the validator that found it. A validator sees
// where the answer stands: noted lets a short note pass on the last
// attempt, and Schema.Judge, which has no retries, is a last attempt.
func ExampleSchema_WithValidators() {
	served := enforce.NewValidator("served-city", func(_ context.Context, f Forecast, _ enforce.Try) ([]enforce.Issue, error) {
		if f.City != "Oslo" {
			return []enforce.Issue{{Path: "/city", Message: f.City + " is not a city we serve"}}, nil
		}
		return nil, nil
	})
	noted := enforce.NewValidator("noted", func(_ context.Context, f Forecast, at enforce.Try) ([]enforce.Issue, error) {
		if len(f.Note) < 10 && at.RetriesLeft > 0 {
			return []enforce.Issue{{Path: "/note", Message: "say a little more"}}, nil
		}
		return nil, nil
	})
	s, _ := enforce.SchemaFor[Forecast]()
	contract, err := s.WithValidators(noted, served)
	if err != nil {
		fmt.Println(err)
		return
	}
	var ce *enforce.CheckError
	if err := contract.Judge(context.Background(), enforce.Answer{Given: `{"city": "Paris", "tempC": 12, "note": "sun"}`}); errors.As(err, &ce) {
		for _, is := range ce.Issues {
			fmt.Printf("%s %s: %s\n", is.Path, is.Keyword, is.Message)
		}
	}

	l, _ := enforce.NewLedger(contract, 1)
	for i, answer := range []string{`{"city": "Paris", "tempC": 12, "note": "sun"}`, `{"city": "Oslo", "tempC": 4, "note": "sun"}`} {
		v := l.Judge(context.Background(), enforce.Answer{Iteration: i + 1, Given: answer})
		for _, line := range strings.Split(v.Corrective, "\n") {
			if strings.HasPrefix(line, "- at ") {
				fmt.Println(line)
			}
		}
		fmt.Println(v.Row.Attempt, v.Row.Outcome, v.Row.Path)
	}
	// Output:
	// /city served-city: Paris is not a city we serve
	// - at "/city": "Paris is not a city we serve"
	// - at "/note": "say a little more"
	// 1 retried /city
	// 2 passed
}

// A validator of one member: it gets just the city, and an Incremental from
// StreamValidating asks it as soon as the city closes, so the answer is
// failed there, before the rest of it arrives.
func ExampleValidator_At() {
	known := enforce.NewValidator("known-city", func(_ context.Context, city string, _ enforce.Try) ([]enforce.Issue, error) {
		if city == "Atlantis" {
			return []enforce.Issue{{Message: "no such city"}}, nil
		}
		return nil, nil
	}).At("/city")
	s, _ := enforce.SchemaFor[Forecast]()
	s, _ = s.WithValidators(known)
	st := s.StreamValidating(context.Background(), enforce.Try{Attempt: 1, RetriesLeft: 2})
	answer := `{"city": "Atlantis", "tempC": 21}`
	n, err := st.WriteString(answer)
	fmt.Printf("%q\n%v\n", answer[:n], err)
	// Output:
	// "{\"city\": \"Atlantis\""
	// schema-validate: /city: no such city
}

func ExampleParseRepairs() {
	rs, err := enforce.ParseRepairs("coerce,fence")
	fmt.Println(rs, err, rs&enforce.RepairProse != 0)
	// Output:
	// fence,coerce <nil> false
}
