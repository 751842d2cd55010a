// Package wire holds what the provider adapters share: classifying a
// failed call into *agent.ProviderError (an HTTP error, a transport
// failure, an error event or a cut inside a stream), reading Retry-After,
// bounding what is read of each response (see [Bound]), and shaping
// schemas for the wire. It is internal to the providers.
package wire
