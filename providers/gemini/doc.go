// Package gemini adapts the generateContent method of Google's Gen AI Go
// SDK (google.golang.org/genai), for the Gemini API and Vertex AI, to
// agent.Model: system messages become the system instruction, tool calls
// functionCall parts and tool results functionResponse parts, token usage
// is mapped back (cached and thought tokens included), and failed calls
// become *agent.ProviderError so agent.WithModelRetry can retry them and
// record why.
//
// It wraps the client you configured:
//
//	client, err := genai.NewClient(ctx, nil) // GEMINI_API_KEY from the environment
//	if err != nil { … }
//	a := agent.New(gemini.New(client, "gemini-2.5-flash"),
//		agent.WithOutputRetries(2),
//		agent.WithModelRetry(agent.RetryPolicy{}))
//	w, res, err := agent.RunTyped[Weather](ctx, a, "Weather in Paris?")
//
// # Retries
//
// Every request is sent with one HTTP try and the SDK's automatic
// continuation off, whatever the client says, because the SDK's own
// retries are invisible: the agent records each retry it schedules
// (turn/modelRetryScheduled) with its kind and delay, so a client
// watching the turn knows why it stalls; a hidden retry is dead air
// before that. Use agent.WithModelRetry, or WithClientRetries to keep the
// client's HTTP retries.
//
// # Errors
//
// An HTTP error becomes a ProviderError whose Kind comes from
// events.KindForStatus, with the status, the API's message and the retry
// delay the error carries: RESOURCE_EXHAUSTED's RetryInfo detail
// ("retryDelay": "38s"), or Retry-After when it has none; a delay past
// 24 h, however large, reads as 24 h, and how long a retry waits is the
// retry policy's (agent.DefaultBackoff caps it). A timeout or a lost
// connection has Kind timeout or connection (so does a body that ends
// mid-stream); a complete body that is not the API's
// JSON has Kind unknown, streamed or not. Err is the SDK's error
// (genai.APIError for API errors). A status outside 100..599 is not kept:
// the failure has Kind unknown and HTTPStatus 0.
//
// # Bounds
//
// No reply is read past a bound, from the socket up: the adapter sends
// through a copy of the client whose transport stops reading a body at
// WithMaxReplyBytes (DefaultMaxReplyBytes, 8 MiB), each event of a stream
// at that bound too and a whole stream at 16 times it, and an error body
// at 64 KiB. Past a bound the call fails with
// ErrReplyTooLarge inside the ProviderError.
//
// # Stop reasons
//
// Why a reply ended (agent.Response.Stop, with finishReason kept in
// StopRaw): "STOP" is agent.StopComplete (agent.StopToolUse when the
// reply calls functions); "MAX_TOKENS" and "CONTINUATION" (the
// per-request limit) agent.StopLength; "SAFETY", "RECITATION",
// "BLOCKLIST", "PROHIBITED_CONTENT", "SPII" and the image filters
// agent.StopContentFilter, never judged, as is a prompt the API blocked
// (promptFeedback.blockReason, kept in StopRaw); anything else
// agent.StopUnknown.
//
// # Streaming
//
// The Model is an agent.StreamingModel, so the agent streams its replies
// (streamGenerateContent?alt=sse) and can judge an answer as it arrives.
// The chunks add up to what Generate returns for the same reply; errors
// are classified the same way. The chunk with a finishReason ends the
// reply: nothing after it is read. When the agent stops reading (an
// answer cut early), the stream and its HTTP connection are closed at
// once, so the model stops generating.
//
// # Tool calls
//
// A call's ID carries the API's call ID (or "call_<n>" when it gave none)
// and the part's thought signature, which Gemini 3 models require back
// with the call: the conversation stays the agent's, and no state is kept
// between requests. Thought parts (thought summaries, with
// includeThoughts) are never the answer: their text, whole or streamed,
// is agent.Message.Reasoning, and is not sent back, as the API documents.
//
// WithNativeSchema sends the agent's output schema as responseJsonSchema,
// for models that support structured output. The answer is judged by the
// contract either way.
package gemini
