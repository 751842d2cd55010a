// Package goopenai adapts the chat completions API of go-openai
// (github.com/sashabaranov/go-openai), the Go OpenAI client many
// hand-written agent loops are built on, to agent.Model: it maps
// messages, tool definitions, tool calls and token usage both ways, and
// turns failed calls into *agent.ProviderError so agent.WithModelRetry
// can retry them and record why. It is providers/openai over another
// client, held to the same wire tests; what differs is said below.
//
// New takes the client configuration go-openai's NewClientWithConfig
// takes, and wraps its HTTPClient (never replaces it): go-openai's errors
// carry the HTTP status but not the headers a Retry-After is read from.
//
//	config := openai.DefaultConfig(os.Getenv("OPENAI_API_KEY"))
//	a := agent.New(goopenai.New(config, "gpt-4o-mini"),
//		agent.WithOutputRetries(2),
//		agent.WithModelRetry(agent.RetryPolicy{}))
//	w, res, err := agent.RunTyped[Weather](ctx, a, "Weather in Paris?")
//
// Ollama, vLLM, llama.cpp's server, LM Studio, DeepSeek, Groq and any
// other OpenAI-compatible endpoint work through the configuration's
// BaseURL (config.BaseURL = "http://localhost:11434/v1" for Ollama).
// go-openai retries nothing itself: every retry is the agent's, recorded
// (turn/modelRetryScheduled) with its kind and delay.
//
// Errors: an HTTP error (go-openai's *openai.APIError, or
// *openai.RequestError for a body that is not the provider's JSON, whose
// text becomes the Message) is a ProviderError whose Kind comes from
// events.KindForStatus, with the status, the Retry-After delay (from
// retry-after-ms, or Retry-After in seconds or as an HTTP date) and the
// provider's message; a 429 or a 5xx is retried. A timeout or a lost
// connection has Kind timeout or connection (so does a stream that ends
// before its finish_reason); a complete body that does not decode has
// Kind unknown. Err is go-openai's error. A status outside 100..599 is
// not kept: Kind unknown, not retried. A 400 naming the response format
// or the tools marks the mode refused (agent.ProviderError.Unsupported),
// for agent.WithAutoOutputMode.
//
// Bounds: no response is read past its bound, from the socket up, as for
// providers/openai — a whole body 32 MiB, an error body 1 MiB, a stream
// 256 MiB in all and 8 MiB per event. go-openai decodes each data line of
// a stream alone, not an event's lines joined: an event of several data
// lines fails at its first, as malformed. A whole JSON reply to a
// streamed request fails saying that the server does not stream and that
// WithoutStreaming asks for whole replies.
//
// Why a reply ended (agent.Response.Stop, finish_reason in StopRaw):
// "stop" is agent.StopComplete, "length" agent.StopLength, "tool_calls"
// and "function_call" agent.StopToolUse, "content_filter"
// agent.StopContentFilter, anything else agent.StopUnknown. A message
// with a refusal is agent.StopRefusal, its text the content.
//
// Streaming: the Model is an agent.StreamingModel (go-openai's
// CreateChatCompletionStream, with stream_options.include_usage), so the
// agent judges an answer as it arrives and can cut a doomed one; the
// chunks add up to what Generate returns. When the agent stops reading,
// the stream and its connection are closed at once.
//
// Usage: prompt_tokens and completion_tokens, with prompt_tokens_details'
// cached_tokens and completion_tokens_details' reasoning_tokens among
// them; agent.Usage.Detailed when the reply carried both details objects.
//
// WithNativeSchema(profile) sends the output schema as a json_schema
// response format lowered by providers/native for the endpoint
// (native.OpenAI strict, native.VLLM, native.LlamaCpp, native.Ollama, …);
// a null the model writes for a member the lowering made nullable is
// removed and named in agent.Response.ReadBack. NativeReport says what is
// sent. The answer is judged by the contract either way.
//
// Thinking: reasoning_content (DeepSeek, vLLM, SGLang, llama.cpp's
// server, LM Studio), whole or in deltas, becomes agent.Message.Reasoning,
// never the answer; an assistant message that called tools sends its
// thinking back as reasoning_content. go-openai decodes no other member:
// the reasoning member of OpenRouter and Ollama is dropped (the answer is
// judged as ever; providers/openai reads it). <think>…</think> in the
// content is read by the agent (agent.WithInlineThinking).
//
// Where go-openai's request differs from providers/openai's: it always
// sends "stream" (false for Generate), leaves an empty content out, and
// sends a tool without parameters an empty object schema.
package goopenai
