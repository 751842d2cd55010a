package openaiwire

import "encoding/json"

// reasoningFields are the members in which OpenAI-compatible servers give
// a reply's thinking apart from its content, in the order they are read:
// reasoning_content (DeepSeek, vLLM, SGLang, llama.cpp's server, LM
// Studio), reasoning (OpenRouter, Ollama, vLLM from 0.10). OpenAI's own
// chat completions give none.
var reasoningFields = [...]string{"reasoning_content", "reasoning"}

// ReasoningOf is the thinking a message or delta carries in one of
// reasoningFields, given the raw JSON of the members its SDK did not
// know: the first that is a non-empty string, else "". A member of
// another type (null, an object) is no thinking.
func ReasoningOf[F interface{ Raw() string }](extra map[string]F) string {
	for _, name := range reasoningFields {
		var s string
		if f, ok := extra[name]; ok && json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// SentReasoning is the member an assistant message with tool calls sends
// its thinking back in. DeepSeek's thinking mode refuses a conversation
// whose tool-calling turns come back without it (400), and ignores it
// elsewhere; vLLM and SGLang ignore it, and Qwen's and gpt-oss's chat
// templates read it in the turn in progress. An answer's thinking (a
// message without tool calls) is not sent back: DeepSeek's R1 refused it,
// and every server documents dropping it.
const SentReasoning = "reasoning_content"
