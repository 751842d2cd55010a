// Package openai adapts the chat completions API of the official OpenAI Go
// SDK (github.com/openai/openai-go/v3) to agent.Model: it maps messages,
// tool definitions, tool calls and token usage both ways, and turns failed
// calls into *agent.ProviderError so agent.WithModelRetry can retry them and
// record why.
//
// It wraps the client you configured. Both packages are named openai, so
// one of them needs an import alias:
//
//	import (
//		"github.com/openai/openai-go/v3"
//		"github.com/openai/openai-go/v3/option"
//
//		enforceropenai "github.com/enforcer-go/enforcer/providers/openai"
//	)
//
//	client := openai.NewClient() // OPENAI_API_KEY from the environment
//	a := agent.New(enforceropenai.New(client, "gpt-4o-mini"),
//		agent.WithOutputRetries(2),
//		agent.WithModelRetry(agent.RetryPolicy{}))
//	w, res, err := agent.RunTyped[Weather](ctx, a, "Weather in Paris?")
//
// Ollama, vLLM, llama.cpp's server and any other OpenAI-compatible endpoint
// work through the client's base URL:
//
//	client := openai.NewClient(
//		option.WithBaseURL("http://localhost:11434/v1/"), // Ollama
//		option.WithAPIKey("ollama"),                      // ignored, but must be set
//	)
//	m := enforceropenai.New(client, "llama3.2")
//
// Retries: every request is sent with option.WithMaxRetries(0), whatever
// the client says, because the SDK's own retries are invisible: the agent
// records each retry it schedules (turn/modelRetryScheduled) with its kind
// and delay, so a client watching the turn knows why it stalls; a hidden
// SDK retry is dead air before that. Use agent.WithModelRetry, or
// WithClientRetries to keep the SDK's.
//
// Errors: an HTTP error becomes a ProviderError whose Kind comes from
// events.KindForStatus, with the status, the Retry-After delay (from
// retry-after-ms, or Retry-After in seconds or as an HTTP date) and the
// provider's message; a timeout or a lost connection has Kind timeout or
// connection (so does a body that ends mid-stream); a complete body that
// does not decode has Kind unknown. Err is the SDK's error (*openai.Error
// for API errors).
// A status outside 100..599, which Go's client accepts, is not kept: the
// failure has Kind unknown and HTTPStatus 0, and is not retried by default.
// A Retry-After past 24 h, however large, reads as 24 h; how long a retry
// waits is the retry policy's (agent.DefaultBackoff caps it).
//
// Bounds: no response is read past its bound, from the socket up — a
// whole body 32 MiB, an error body 1 MiB, a stream 256 MiB in all and
// 8 MiB per server-sent event. Past one the call fails with Kind unknown
// (an error status keeps its own kind), the Message naming the bound. A
// success response to a stream that is not a text/event-stream (a
// proxy's web page) fails as malformed, as the same body does for
// Generate: Kind unknown, not retried. A whole JSON reply to a streamed
// request fails so too, its Message saying that the server does not
// stream, the Content-Type it sent, and that WithoutStreaming asks for
// whole replies.
//
// Why a reply ended (agent.Response.Stop, with finish_reason kept in
// StopRaw): finish_reason "stop" is agent.StopComplete, "length"
// agent.StopLength, "tool_calls" and the older "function_call"
// agent.StopToolUse, "content_filter" agent.StopContentFilter, anything
// else agent.StopUnknown. A message with a refusal is agent.StopRefusal
// whatever finish_reason says, with the refusal text as its content.
//
// Streaming: the Model is an agent.StreamingModel, so the agent streams
// its replies (Chat.Completions.NewStreaming, with
// stream_options.include_usage) and can judge an answer as it arrives.
// The chunks add up to what Generate returns for the same reply; errors
// are classified the same way, with no SDK retries. An error event
// mid-stream is classified by its error type (HTTPStatus 0), and a stream
// that breaks or ends before a finish_reason is kind connection. The
// reply ends at its finish_reason: deltas after it are dropped, and the
// connection is closed once the usage chunk that follows has come. When
// the agent stops reading (an answer cut early), the stream and its
// HTTP connection are closed at once, so the endpoint stops generating.
// Many OpenAI-compatible servers do not stream: with WithoutStreaming,
// GenerateStream sends Generate's request and yields the reply whole.
//
// Usage: prompt_tokens and completion_tokens, with prompt_tokens_details'
// cached_tokens and completion_tokens_details' reasoning_tokens among them;
// agent.Usage.Detailed when the reply reported both (many
// OpenAI-compatible servers do not).
//
// WithNativeSchema(profile) sends the agent's output schema as a
// json_schema response format, lowered by providers/native for the
// endpoint: native.OpenAI for OpenAI's strict mode (every member required,
// optional ones nullable, objects closed, unsupported keywords left out;
// non-strict when the contract cannot be expressed so), native.VLLM,
// native.LlamaCpp or native.Ollama for those servers' subsets. A null the
// model writes for a member the lowering made nullable is removed from
// the answer, as it streams and in Generate, and named in
// agent.Response.ReadBack, so the answer judged is the one the contract
// means and its row says so. NativeReport says, for a contract, what is
// sent and which keywords only the agent judges. The answer is judged by
// the contract either way.
//
// Thinking: the reasoning OpenAI-compatible servers give apart from the
// content — reasoning_content (DeepSeek, vLLM, SGLang, llama.cpp's
// server, LM Studio) or reasoning (OpenRouter, Ollama, newer vLLM), whole
// or in deltas — becomes agent.Message.Reasoning, never the answer; a
// server without a reasoning parser that writes <think>…</think> into the
// content is read by the agent (agent.WithInlineThinking). Sent back, an
// assistant message that called tools carries its thinking as
// reasoning_content (DeepSeek's thinking mode refuses the conversation
// without it); an answer's thinking is not sent.
package openai
