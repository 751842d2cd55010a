// Package openaiwire holds what the adapters of OpenAI's chat completions
// wire share whatever client they call it through (providers/openai over
// openai-go, providers/goopenai over go-openai): shaping schemas for its
// tools and response formats, the lowering of an output schema, reading
// a reply's thinking, its finish_reason, a stream's chunks, and the
// errors and statuses the wire sends. It is internal to the providers.
package openaiwire
