// Package eino runs cloudwego/eino models and agents under enforcer's
// output contract.
//
// [NewModel] makes an agent.Model (and agent.StreamingModel) of an eino
// model.ToolCallingChatModel, so every provider eino-ext supports runs
// under the agent package's loop: its tools, tool calls, stop reasons,
// usage and errors mapped as the provider adapters map them: a failed
// call keeps the HTTP status its provider's error carries (eino-ext's
// OpenAI model and those built on it; another provider's by its error's
// text and shape), so a 429 or 503 is retried under agent.WithModelRetry.
// eino passes no response headers on, so no Retry-After is known.
//
//	a := agent.New(eino.NewModel(chatModel), agent.WithOutputSchema(s), agent.WithOutputRetries(2))
//	w, res, err := agent.RunTyped[Weather](ctx, a, "Weather in Paris?")
//
// [Agent] keeps the eino agent or graph a program already has (a ReAct
// agent, a compiled graph mapping messages to a message) and runs it as
// the model of an agent.Agent: each run of it is one final answer, judged
// against the contract; a failing answer and the corrective turn are
// appended to the conversation the eino agent is run with again. Rows,
// corrective hashes, session events (agent.WithEvents) and traces
// (agent.WithObserver) are those of the agent package's own loop. A run's
// usage is every chat model call it made, read from eino's callbacks.
//
//	ra, _ := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: chatModel, ToolsConfig: tools})
//	a := agent.New(eino.Agent(ra.Generate), agent.WithOutputSchema(s), agent.WithOutputRetries(2))
//
// [AgentStream] does the same for its Stream, so that a failing answer is
// cut at the first byte that dooms it, the eino stream closed there.
package eino
