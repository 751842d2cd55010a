package enforce_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/enforcer-go/enforcer/enforce"
)

// A validator checks what the schema cannot — here, that a forecast is
// for a city we serve. Loop sends its issue to the model in the same
// corrective turn as a schema issue would be.
func ExampleValidate() {
	served := enforce.Validate("served-city", func(_ context.Context, f Forecast, at enforce.Try) ([]enforce.Issue, error) {
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
// correction: the ledger stops with retries unspent. WithRepeatLimit(0)
// would spend them all.
func ExampleWithRepeatLimit() {
	s, _ := enforce.SchemaFor[Forecast]()
	answers := []string{`{"city": "Oslo", "tempC": "cold"}`, `{"city": "Oslo", "tempC": "chilly"}`}
	calls := 0
	model := func(context.Context, string) (string, error) {
		calls++
		return answers[calls-1], nil
	}
	_, attempts, err := enforce.Loop(context.Background(), s, 3, model, enforce.WithRepeatLimit(enforce.DefaultRepeatLimit))
	for _, a := range attempts {
		fmt.Printf("%d %s %s reason=%q\n", a.Attempt, a.Outcome, a.Path, a.Reason)
	}
	fmt.Println(errors.Is(err, enforce.ErrRepeated))
	// Output:
	// 1 retried /tempC reason=""
	// 2 exhausted /tempC reason="repeated"
	// true
}
