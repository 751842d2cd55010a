package openaiwire

import (
	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/native"
)

// reasoningUnconstrained says, per profile, why its server does not hold
// a reasoning model's answer to the response format, as its tracker
// reports: the format is then no native mode for agent.WithAutoOutputMode.
// vLLM and SGLang, with their reasoning parsers, constrain the answer
// after the thinking ends (vLLM's reasoning outputs guide), and are not
// listed; OpenAI's reasoning models take strict structured outputs.
var reasoningUnconstrained = map[native.Profile]string{
	native.Ollama: "the model reasons, and Ollama does not constrain a thinking model's answer " +
		"to its format (ollama/ollama#10538, ollama/ollama-python#523)",
	native.LlamaCpp: "the model reasons, and llama.cpp's grammar constrains the whole reply " +
		"from its first token, which leaves no room for its thinking (lmstudio-ai/lmstudio-bug-tracker#575)",
}

// ReasoningModes is m, what an adapter over profile p reports, for a
// model the caller says reasons (the adapters' WithReasoning): no native
// mode where p's server does not constrain a reasoning model's answer,
// Why saying so.
func ReasoningModes(m agent.Modes, p native.Profile) agent.Modes {
	why, ok := reasoningUnconstrained[p]
	if !ok || !m.Native && !m.Strict {
		return m
	}
	m.Native, m.Strict = false, false
	if m.Why != "" {
		why = m.Why + "; " + why
	}
	m.Why = why
	return m
}
