// Package anthropic adapts the Messages API of the official Anthropic Go
// SDK (github.com/anthropics/anthropic-sdk-go/v2) to agent.Model: the
// system messages become the top-level system prompt, tool calls become
// tool_use blocks and tool results tool_result blocks of a user message,
// token usage is mapped back, and failed calls become *agent.ProviderError
// so agent.WithModelRetry can retry them and record why.
//
// It wraps the client you configured. Both packages are named anthropic,
// so one of them needs an import alias:
//
//	import (
//		"github.com/anthropics/anthropic-sdk-go/v2"
//
//		enforceranthropic "github.com/enforcer-go/enforcer/providers/anthropic"
//	)
//
//	client := anthropic.NewClient() // ANTHROPIC_API_KEY from the environment
//	a := agent.New(enforceranthropic.New(client, "claude-sonnet-4-5", enforceranthropic.WithMaxTokens(1024)),
//		agent.WithOutputRetries(2),
//		agent.WithModelRetry(agent.RetryPolicy{}))
//	w, res, err := agent.RunTyped[Weather](ctx, a, "Weather in Paris?")
//
// Every request needs max_tokens: DefaultMaxTokens unless WithMaxTokens
// says otherwise.
//
// Retries: every request is sent with option.WithMaxRetries(0), whatever
// the client says, because the SDK's own retries are invisible: the agent
// records each retry it schedules (turn/modelRetryScheduled) with its kind
// and delay, so a client watching the turn knows why it stalls; a hidden
// SDK retry is dead air before that. Use agent.WithModelRetry, or
// WithClientRetries to keep the SDK's.
//
// Errors: an HTTP error becomes a ProviderError whose Kind comes from
// events.KindForStatus (529 is overloaded), with the status, the
// Retry-After delay (from retry-after-ms, or Retry-After in seconds or as
// an HTTP date) and the provider's message; a timeout or a lost connection
// has Kind timeout or connection (so does a body that ends mid-stream); a
// complete body that does not decode has Kind unknown. Err is the SDK's
// error (*anthropic.Error for API errors).
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
// Generate: Kind unknown, not retried.
//
// Why a reply ended (agent.Response.Stop, with stop_reason kept in
// StopRaw): "end_turn" and "stop_sequence" are agent.StopComplete,
// "max_tokens" and "model_context_window_exceeded" agent.StopLength,
// "tool_use" agent.StopToolUse, "refusal" agent.StopRefusal (its text, if
// any, the content); anything else, "pause_turn" included (a server-tool
// turn the adapter never starts), is agent.StopUnknown.
//
// Streaming: the Model is an agent.StreamingModel, so the agent streams
// its replies (Messages.NewStreaming) and can judge an answer as it
// arrives. The chunks add up to what Generate returns for the same reply;
// errors are classified the same way, with no SDK retries. An error event
// mid-stream (overloaded_error, say) is classified by its error type
// (HTTPStatus 0), and a stream that breaks or ends before message_stop is
// kind connection. The reply ends at message_stop: nothing after it is
// read, and the connection is closed then. When the agent stops reading
// (an answer cut early), the stream and its HTTP connection are
// closed at once, so the model stops generating. Only Generate is bound by the SDK's ten-minute
// rule for large max_tokens.
//
// Text that is empty or only whitespace is never sent: the API refuses
// such text blocks, and a model's own reply can be one (a newline before a
// tool call). Likewise a tool call whose arguments are not a JSON object
// (one truncated at max_tokens) is sent back with input {}.
//
// Usage: the prompt is input_tokens with both cache counts, the cache reads
// are agent.Usage.CachedTokens. Thinking is counted among output_tokens
// without its own count, so a reply with thinking blocks is not
// agent.Usage.Detailed; one without is (no reasoning tokens), when the
// cache reads were reported.
//
// WithNativeSchema sends the agent's output schema as a structured-output
// format (output_config.format), for models that support it, lowered by
// providers/native to the subset the API takes (no numeric or length
// bounds, objects closed, minItems 0 or 1); a contract the API cannot
// express (a map, recursion) is sent with no format. NativeReport says,
// for a contract, what is sent and which keywords only the agent judges.
// The answer is judged by the contract either way; without the option (or
// the format) the contract reaches the model only through the system
// prompt the agent writes.
//
// Thinking: extended thinking's thinking blocks, whole or streamed
// (thinking_delta, signature_delta), become agent.Message.Reasoning (each
// block's text, a blank line between), never the answer; every thinking
// and redacted_thinking block, signature and data unchanged, is kept in
// Message.ReasoningRaw. Sent back, an assistant message that called tools
// begins with those blocks, as the API requires in a tool loop; an
// answer's thinking is not sent (the API drops earlier turns' thinking).
// The API refuses a forced tool call while thinking (WithParams setting
// thinking): the output tool is then sent with tool_choice auto, and
// OutputModes reports no tools, so agent.WithAutoOutputMode chooses
// native or prompted and says why in agent.Result.Modes.
package anthropic
