// Package genkit holds Firebase Genkit Go's generate calls to enforcer's
// output contract, inside Genkit's own loop: its tools, prompts and flows
// run as they do, and the contract is judged where each model call
// returns.
//
// A [Guard] is model middleware (ai.WithMiddleware) for one generate
// call: it judges each final answer against the contract, sends a
// failing one back with a corrective turn (WithOutputRetries), cuts a
// streamed answer at the first byte that dooms it, retries a model call
// that failed with a 429 or 503 after its Retry-After (WithModelRetry),
// and keeps the rows ([Guard.Attempts]) and the usage of every call
// ([Guard.Usage]). [DefineFormat] registers enforcer's output format,
// [Format]: the schema ai.WithOutputType gives is the contract the Guard
// enforces.
//
//	g := genkit.Init(ctx, genkit.WithPlugins(oai))
//	enforcergenkit.DefineFormat(g)
//	guard, _ := enforcergenkit.New(enforcergenkit.WithOutputRetries(2))
//	resp, err := genkit.Generate(ctx, g, ai.WithModel(m), ai.WithPrompt("Weather in Paris?"),
//		ai.WithOutputType(Weather{}), ai.WithOutputFormat(enforcergenkit.Format),
//		ai.WithMiddleware(guard.Middleware()))
//
// # One judge
//
// Genkit's json format checks an answer against the schema itself, after
// the middleware, with rules of its own (it takes the JSON out of a code
// fence; its errors end the call). Under [Format] that check is not run:
// the Guard's verdict is the only one, with enforcer's two stages and
// rows, and ModelResponse.Output decodes what it passed. A Guard asked to
// judge under one of Genkit's own formats refuses ([ErrTwoJudges]).
// genkit.GenerateData always asks for Genkit's json format; use
// genkit.Generate and ModelResponse.Output, or genkit.GenerateDataStream,
// whose format can be chosen.
//
// # Versions
//
// Written against Genkit Go v1.4.0, whose middleware hook is
// ai.WithMiddleware; later versions deprecate it for ai.WithUse (after
// v1.7.0), which this package does not yet offer. Genkit's
// OpenAI-compatible plugin (compat_oai) returns the *openai.Error of its
// client, from which the status and Retry-After are read; its client
// retries on its own unless given option.WithMaxRetries(0). Genkit v1.4.0
// does not build beside enforcer as published: its dotprompt dependency
// names the ordered map of invopop/jsonschema v0.13.0, and enforcer
// requires v0.14.0. This module replaces dotprompt with a copy changed in
// that one import (third_party/dotprompt). A replace in a dependency
// does not reach a program, so a program needs the line too:
//
//	replace github.com/google/dotprompt/go => ../enforcer/integrations/genkit/third_party/dotprompt
package genkit
