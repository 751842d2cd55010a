package agent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// A model judges a member of the answer by a rubric. Its reason is the
// corrective turn's issue at that member; every row says what the judge
// made of the answer and what it cost, and the judge's calls are in the
// run's usage apart from the agent's.
func ExampleJudge() {
	model := cannedModel(answer(`{"city":"Lyon","tempC":21}`), answer(`{"city":"Paris","tempC":21}`))
	judge := cannedModel(
		answer(`{"pass": false, "reason": "Lyon is not Paris"}`),
		answer(`{"pass": true, "reason": "Paris, as asked"}`))
	paris := agent.Judge("asked-city", judge, "Is this the city the user asked about, Paris?").At("/city")
	a := agent.New(model, agent.WithOutputRetries(2), agent.WithValidators(paris))

	_, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.Attempts {
		for _, v := range *r.Rules {
			fmt.Println(strings.TrimSpace(fmt.Sprintln(r.Attempt, r.Outcome, v.Rule, v.Verdict, v.Path, v.Reason)))
		}
	}
	corrective := res.Messages[len(res.Messages)-2].Content
	fmt.Println(corrective[strings.LastIndex(corrective, "\n")+1:])
	for _, m := range res.Models {
		fmt.Println("judge:", m.Judge, "requests:", m.Requests)
	}
	// Output:
	// 1 retried asked-city failed /city Lyon is not Paris
	// 2 passed asked-city passed
	// - at "/city": "Lyon is not Paris"
	// judge: false requests: 2
	// judge: true requests: 2
}

// Each rule has a policy for the answers it finds issues in: a tripwire
// ends the run at once, retries unspent, naming the rule.
func ExampleJudge_tripwire() {
	model := cannedModel(answer(`{"city":"Paris","tempC":21}`))
	judge := cannedModel(answer(`{"pass": false, "reason": "it names a competitor"}`))
	clean := agent.Judge("no-competitor", judge, "Does the text avoid naming any competitor of ACME?").OnFail(enforce.PolicyTripwire)
	a := agent.New(model, agent.WithOutputRetries(2), agent.WithValidators(clean))

	_, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	var oe *enforce.OutputError
	if errors.As(err, &oe) && errors.Is(err, enforce.ErrTripwire) {
		fmt.Println("stopped by", oe.Rule)
	}
	r := res.Attempts[0]
	fmt.Println(r.Outcome, r.Reason, r.Error)
	// Output:
	// stopped by no-competitor
	// exhausted tripwire it names a competitor
}
