// Package wire holds what the provider adapters share: classifying a
// failed call into *agent.ProviderError (an HTTP error, a transport
// failure, an error event or a break inside a stream), reading Retry-After,
// and bounding what is read of each response (see [Bound]). Schemas are
// shaped for the wire by internal/wireschema, which the framework
// integrations share. It is internal to the providers.
package wire
