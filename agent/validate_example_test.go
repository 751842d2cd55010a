package agent_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// An untyped validator reads the parsed JSON value. Its issue is sent to
// the model in the corrective turn, as a schema issue would be; the
// corrective message ends with the issue, quoted as data.
func ExampleWithValidators() {
	s, _ := enforce.SchemaFor[Weather]()
	paris := enforce.NewValidator("paris-only", func(_ context.Context, answer any, _ enforce.Try) ([]enforce.Issue, error) {
		if city, _ := answer.(map[string]any)["city"].(string); city != "Paris" {
			return []enforce.Issue{{Path: "/city", Message: "we forecast Paris only, not " + city}}, nil
		}
		return nil, nil
	})
	model := cannedModel(answer(`{"city":"Lyon","tempC":21}`), answer(`{"city":"Paris","tempC":21}`))
	a := agent.New(model, agent.WithOutputSchema(s), agent.WithOutputRetries(2), agent.WithValidators(paris))

	res, err := a.Run(context.Background(), "Weather in Paris?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Messages[len(res.Messages)-2].Content) // the corrective turn
	for _, r := range res.Attempts {
		fmt.Println(r.Attempt, r.Outcome, r.Stage, r.Path)
	}
	// Output:
	// Your previous answer did not satisfy the required output format. This was attempt 1 of 3.
	// Stage: schema-validate — the answer matches the JSON Schema, but checks of its content failed.
	// Reply with only the corrected JSON value, nothing else.
	// The issue follows, its pointer and message quoted as data:
	// - at "/city": "we forecast Paris only, not Lyon"
	// 1 retried schema-validate /city
	// 2 passed
}

// A typed validator gets the answer decoded into T and where it stands in
// the run. This one gives up at once on a city that does not exist: no
// correction can fix that, so no retry is spent.
func ExampleRunTyped_validator() {
	known := enforce.NewValidator("known-city", func(_ context.Context, w Weather, at enforce.Try) ([]enforce.Issue, error) {
		if w.City == "Atlantis" {
			return []enforce.Issue{{Path: "/city", Message: "Atlantis is not on any map"}}, enforce.ErrBeyondRepair
		}
		return nil, nil
	})
	model := cannedModel(answer(`{"city":"Atlantis","tempC":30}`))
	a := agent.New(model, agent.WithOutputRetries(2), agent.WithValidators(known))

	_, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Atlantis?")
	fmt.Println(errors.Is(err, enforce.ErrBeyondRepair))
	r := res.Attempts[0]
	fmt.Println(r.Outcome, r.Reason, r.Path, r.Error)
	// Output:
	// true
	// exhausted beyond-repair /city Atlantis is not on any map
}

// A model that gives the same wrong answer again is not learning from the
// correction. WithRepeatLimit(2) ends the run at the second identical
// failure in a row, its retries unspent; WithRepeatLimit(3) allows one
// more try; without a limit (the default, 0) every retry is spent.
func ExampleWithRepeatLimit() {
	for _, limit := range []int{2, 3, 0} {
		model := cannedModel(answer(`{"city":"Paris"}`), answer(`{"city":"Paris"}`), answer(`{"city":"Paris","tempC":21}`))
		a := agent.New(model, agent.WithOutputRetries(3), agent.WithRepeatLimit(limit))
		_, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
		fmt.Println("limit", limit, "repeated:", errors.Is(err, enforce.ErrRepeated))
		for _, r := range res.Attempts {
			fmt.Printf("%d %s reason=%q\n", r.Attempt, r.Outcome, r.Reason)
		}
	}
	// Output:
	// limit 2 repeated: true
	// 1 retried reason=""
	// 2 exhausted reason="repeated"
	// limit 3 repeated: false
	// 1 retried reason=""
	// 2 retried reason=""
	// 3 passed reason=""
	// limit 0 repeated: false
	// 1 retried reason=""
	// 2 retried reason=""
	// 3 passed reason=""
}
