// Package enforce holds an LLM's final answer to an output contract, a JSON
// Schema. Check judges an answer in two stages — json-parse (the whole
// answer must be exactly one JSON value) and schema-validate — and reports
// every issue with its JSON Pointer. A Ledger judges the answers of one run
// against a retry budget: it records one Attempt row per answer, writes the
// corrective message for the model when an answer fails with retries left,
// and stops at once when a rewrite, not the model, broke a valid answer.
// Loop wraps any loop that produces answers, so the package works without
// the agent package.
//
// The shortest real use:
//
//	type Weather struct {
//		City  string  `json:"city"`
//		TempC float64 `json:"tempC"`
//	}
//	s, err := enforce.SchemaFor[Weather]()
//	if err != nil {
//		return err
//	}
//	answer, attempts, err := enforce.Loop(ctx, s, 2, func(ctx context.Context, corrective string) (string, error) {
//		return callModel(ctx, corrective) // corrective is "" the first time
//	})
//
// Schemas the validator would check wrongly (2020-12-only keywords, $ref
// loops that consume no input, references outside the document) are refused
// by CompileSchema with a *SchemaError naming the keyword and its location.
// Answers of any size are judged without a crash: nesting deeper than
// MaxDepth, invalid UTF-8, duplicate keys and numbers too large to compare
// exactly fail the json-parse stage.
package enforce
