// Package wire holds what the provider adapters share: the settings
// their options have alike ([Options]) and the request options of every
// call ([SDK.RequestOptions]); classifying a failed call into
// *agent.ProviderError (an HTTP error, a transport failure, an error
// event, a break inside a stream, a reply that makes no sense, its
// Retry-After read by internal/retryafter), and bounding what is read of each response (see [Bound]).
// Schemas are shaped for the wire by internal/wireschema, which the
// framework integrations share; tool call IDs are internal/toolcall's.
// What only the adapters of OpenAI's chat completions wire share is
// providers/internal/openaiwire's. It is internal to the providers.
package wire
