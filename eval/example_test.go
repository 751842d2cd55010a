package eval_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/eval"
)

func ExampleOffline() {
	data := `{"model":"a","schema":{"type":"object","required":["city"]},"output":"{\"city\":\"Oslo\"}"}
{"model":"a","schema":{"type":"object","required":["city"]},"output":"Sure! {\"city\":\"Rome\"}"}
{"model":"b","schema":{"type":"object","required":["city"]},"output":"{}"}`
	rep, err := eval.Offline(context.Background(), strings.NewReader(data), eval.Options{Repairs: enforce.AllRepairs})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range rep.Groups {
		fmt.Printf("%s: %d of %d as written, %d after repair\n", g.Group, g.PassedAsWritten, g.Records, g.PassedAfterRepair)
	}
	low, _ := rep.Below(eval.AfterRepair, 0.9)
	fmt.Println("under 90% after repair:", len(low))
	// Output:
	// a: 1 of 2 as written, 2 after repair
	// b: 0 of 1 as written, 0 after repair
	// under 90% after repair: 1
}

func ExampleLive() {
	// Any agent.Model; here one that always answers the same.
	m := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: `{"city":"Oslo"}`}}, nil
	})
	data := `{"model":"m","schema":{"type":"object","required":["city"]},"prompt":"Where is it cold?"}`
	rep, err := eval.Live(context.Background(), strings.NewReader(data), eval.LiveOptions{
		Model: m, Agent: []agent.Option{agent.WithOutputRetries(1)}, Runs: 3,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	g := rep.Groups[0]
	fmt.Printf("%s: %d runs, %d first try, %d after retry\n", g.Group, g.Runs, g.PassedFirstTry, g.PassedAfterRetry)
	// Output:
	// m: 3 runs, 3 first try, 3 after retry
}

func ExampleCompare() {
	old := &eval.Report{Groups: []eval.Group{{Group: "m", Records: 10, PassedAsWritten: 9, PassedAfterRepair: 10}}}
	new := &eval.Report{Groups: []eval.Group{{Group: "m", Records: 10, PassedAsWritten: 7, PassedAfterRepair: 10}}}
	for _, c := range eval.Compare(old, new, 0.01).Regressions() {
		fmt.Printf("%s %s: %.0f%% → %.0f%%\n", c.Group, c.Rate, 100*c.Old, 100*c.New)
	}
	// Output:
	// m as-written: 90% → 70%
}

func ExampleWriteCompareHTML() {
	const schema = `{"type":"object","required":["city"]}`
	read := func(data string) *eval.Report {
		rep, _ := eval.Offline(context.Background(), strings.NewReader(data), eval.Options{})
		return rep
	}
	old := read(`{"id":"oslo","model":"m","schema":` + schema + `,"output":"{\"city\":\"Oslo\"}"}
{"id":"rome","model":"m","schema":` + schema + `,"output":"{\"city\":\"Rome\"}"}`)
	new := read(`{"id":"oslo","model":"m","schema":` + schema + `,"output":"{\"city\":\"Oslo\"}"}
{"id":"rome","model":"m","schema":` + schema + `,"output":"{}"}`)
	var page strings.Builder
	if err := eval.WriteCompareHTML(&page, new, eval.Compare(old, new, 0.01)); err != nil {
		fmt.Println(err)
		return
	}
	_, summary, _ := strings.Cut(page.String(), `<p id="compare-summary">`)
	summary, _, _ = strings.Cut(summary, "</p>")
	fmt.Println(summary)
	fmt.Println("lists rome as newly failing:", strings.Contains(page.String(), `data-move="newly-failing" data-id="rome"`))
	// Output:
	// 1 newly failing, 0 newly passing, 0 failing at another issue; 2 rates regressed.
	// lists rome as newly failing: true
}
