package agent_test

import (
	"context"
	"fmt"

	"github.com/enforcer-go/enforcer/agent"
)

// Each element of the list is taken as soon as its closing byte arrives;
// an answer that fails is announced void before the next one's elements.
func ExampleRunElements() {
	type Stop struct {
		Name string `json:"name"`
		Min  int    `json:"min" jsonschema:"minimum=1"`
	}
	m := &byteStream{replies: []string{
		`[{"name":"Louvre","min":90},{"name":"Orsay","min":0}]`, // a stop of 0 minutes
		`[{"name":"Louvre","min":90},{"name":"Orsay","min":60}]`,
	}}
	a := agent.New(m, agent.WithOutputRetries(1))
	s := agent.RunElements[[]Stop, Stop](context.Background(), a, "Plan my day.", "")
	for e := range s.Elements() {
		if e.Restart {
			fmt.Printf("attempt %d: the stops before are void\n", e.Attempt)
			continue
		}
		fmt.Printf("attempt %d stop %d: %+v\n", e.Attempt, e.Index, e.Value)
	}
	stops, res, err := s.Result()
	fmt.Println(len(stops), len(res.Attempts), err)
	// Output:
	// attempt 1 stop 0: {Name:Louvre Min:90}
	// attempt 2: the stops before are void
	// attempt 2 stop 0: {Name:Louvre Min:90}
	// attempt 2 stop 1: {Name:Orsay Min:60}
	// 2 2 <nil>
}
