// Package langchaingo runs tmc/langchaingo models, chains and agent
// executors under enforcer's output contract.
//
// [NewModel] makes an agent.Model (and agent.StreamingModel) of a
// langchaingo llms.Model, so each of its providers runs under the agent
// package's loop: tools, tool calls, stop reasons, usage and errors
// mapped as the provider adapters map them, and the reply streamed
// through langchaingo's streaming callback. langchaingo's providers
// return errors as text: the HTTP status is read from it where a
// provider writes it ("API returned unexpected status code: 429", as
// OpenAI's, Anthropic's and ERNIE's clients do), so a 429 or 503 is
// retried under agent.WithModelRetry. What langchaingo drops cannot be
// known: the Retry-After header, and the status of a provider whose text
// does not say it.
//
//	a := agent.New(langchaingo.NewModel(llm), agent.WithOutputSchema(s), agent.WithOutputRetries(2))
//	w, res, err := agent.RunTyped[Weather](ctx, a, "Weather in Paris?")
//
// [Chain] keeps the chain or agent executor a program already has and
// runs it as the model of an agent.Agent: each call of the chain is one
// final answer, judged against the contract, and a failing answer's
// corrective turn is the chain's next input: alone when the chain's
// memory holds the failed answer and its prompt shows that memory (a
// conversation chain, a conversational agent), else after the question
// and the failed answer (no memory, or a one-shot agent, whose prompt
// never shows it). Rows, corrective hashes, session events (agent.WithEvents)
// and traces (agent.WithObserver) are those of the agent package's own
// loop.
//
//	exec := agents.NewExecutor(agents.NewOneShotAgent(llm, tools))
//	a := agent.New(langchaingo.Chain(exec), agent.WithOutputSchema(s), agent.WithOutputRetries(2))
package langchaingo
