// Package agent runs a ReAct loop over a Model and enforces its output
// contract.
//
// The model either asks for tool calls, which the loop runs and answers
// with tool messages, or gives a final answer. With an output schema the
// final answer passes act-output middleware and is judged by package
// enforce; with WithOutputRetries a failing answer is answered with a
// corrective turn and the loop runs again, and Result.Attempts records one
// row per final answer.
//
//	s, _ := enforce.SchemaFor[Weather]()
//	a := agent.New(model, agent.WithOutputSchema(s), agent.WithOutputRetries(2))
//	w, res, err := agent.RunTyped[Weather](ctx, a, "Weather in Paris?")
//	// res.Attempts: [{attempt:1 outcome:retried …} {attempt:2 outcome:passed}]
package agent
