// Package native lowers an output contract for a provider's native
// structured-output mode, reports what the provider enforces and what
// only enforcer judges, and reads back, in the answer, what the lowering
// changed.
//
// Providers constrain their output to a subset of JSON Schema each, and
// refuse the rest: OpenAI's strict mode answers 400 for an optional
// property or an object that does not forbid additional ones; Anthropic
// and Gemini take their own subsets; servers for local models
// (vLLM, llama.cpp, Ollama) take theirs. [Lower] sends the strongest
// schema a profile takes for the contract: it leaves out the keywords
// the provider lacks (the [Report] lists each), forbids additional
// properties where the provider wants that, and, for OpenAI strict,
// sends optional members as required and nullable. A contract the
// profile cannot express at all (a map, a free-form object, recursion
// where the provider has none) is sent non-strict or not at all, and the
// report says why: never a request the provider refuses.
//
// The answer is still judged against the contract itself. A null the
// model writes for a member the lowering made nullable means "left out":
// the read-back removes exactly those members from the answer's text
// before it is judged — [Lowering.Text] of a whole answer, or, as the
// answer streams, the [ReadBack] that [Lowering.ReadBack] returns, fed
// each piece ([ReadBack.Write]) and then closed ([ReadBack.Close]).
//
//	l, err := native.Lower(contract, native.OpenAI)
//	// send l.Schema with strict: l.Strict(); then, on a whole answer:
//	text, removed := l.Text(answer)
//
// The adapters in providers/openai, providers/anthropic and
// providers/gemini lower the contract with their WithNativeSchema option
// (only OpenAI's strict mode makes members nullable, so only the OpenAI
// adapter reads back); `enforcer schema -provider` prints the report.
package native
