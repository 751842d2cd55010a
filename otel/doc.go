// Package otel turns what an agent run does into OpenTelemetry spans,
// following the GenAI semantic conventions: one invoke_agent span per run
// (a child of the span in the caller's context), a chat span per model
// call and an execute_tool span per tool call beneath it. Each row of
// the ledger, and each scheduled model or turn retry, is an event
// on the run span, so a trace tells why a run took as long and as many
// calls as it did. It plugs into the agent's observer seam:
//
//	a := agent.New(model, agent.WithOutputSchema(schema), agent.WithOutputRetries(2),
//		agent.WithObserver(otel.Observer(otel.WithModelOf(model))))
//
// The model receives a context that carries its chat span, so an adapter
// whose HTTP client is instrumented nests its requests under it.
//
// Nothing the user, the model, a tool or a provider wrote goes on a span
// unless [WithContent] says so: text is described by its length and its
// FNV-1a hash (fnv.Hex32a), errors by words of the library's own.
//
// The package lives in a module of its own so that the core module does
// not depend on OpenTelemetry.
package otel
