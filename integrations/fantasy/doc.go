// Package fantasy runs Charm's fantasy (charm.land/fantasy) models and
// agents under enforcer's output contract.
//
// [NewModel] makes an agent.Model (and agent.StreamingModel) of a
// fantasy.LanguageModel, its Generate and Stream, so every provider
// fantasy supports runs under the agent package's loop: tools, tool
// calls, finish reasons, usage and errors mapped as the provider
// adapters map them. A failed call keeps the HTTP status and the
// Retry-After of fantasy's *ProviderError, so a 429 or 503 is retried
// under agent.WithModelRetry, waiting as the provider asked. A doomed
// streamed answer is cut early, the provider's request ended there.
//
// fantasy's package and this one share a name; one takes an alias:
//
//	import charm "charm.land/fantasy"
//
//	a := agent.New(fantasy.NewModel(lm, charm.Call{}), agent.WithOutputSchema(s), agent.WithOutputRetries(2))
//	w, res, err := agent.RunTyped[Weather](ctx, a, "Weather in Paris?")
//
// [NewObjectModel] does the same over GenerateObject, fantasy's native
// structured output: the contract is lowered to fantasy's Schema for the
// provider, and fantasy's raw text is judged by enforcer, which is the
// one judge: an answer fantasy refused is corrected like any other, one
// fantasy accepted still has to keep the whole contract.
//
// [Agent] keeps the fantasy agent a program already has and runs it as
// the model of an agent.Agent: each run of it is one final answer, its
// usage every step's; a failing answer and the corrective turn are
// appended to the conversation the fantasy agent is run with again.
// [JudgeTools] puts the judge in front of its tools.
// fantasy's step hooks (PrepareStep, OnStepFinish) are left to the
// program: fantasy's loop ends at the first step without tool calls, so
// no hook can send a corrective turn inside it.
//
// [RepairText] offers enforcer's repairs to a fantasy program's own
// GenerateObject calls, as its ObjectCall.RepairText hook, each mend on
// the record. There fantasy judges; the hook hands it a mended text only
// when that keeps the whole contract, and fantasy checks it again, so
// the two judges never disagree silently.
//
// # Versions
//
// The glue is built and tested against fantasy v0.41.2, the newest
// release that builds with Go 1.26; v0.48 needs Go 1.27, which would
// make every user of this module switch toolchains.
package fantasy
