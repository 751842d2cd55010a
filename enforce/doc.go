// Package enforce holds an LLM's final answer to an output contract, a JSON
// Schema: it compiles the contract, judges answers in two stages, writes
// the corrective message when one fails, and keeps a ledger, a row per
// answer. It works around any loop that produces answers; package agent
// uses it, but it does not need agent.
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
// # Contracts
//
// [SchemaFor] reflects the contract from a Go type; [CompileSchema] takes a
// JSON Schema document (draft-04, -06, -07, 2019-09 or 2020-12). [Schema.For] binds a
// compiled contract to a Go type, so that an answer that keeps the schema
// but does not decode into the type fails too, and refuses a contract
// reflected from another type.
//
// Schemas gojsonschema would check wrongly (2019-09/2020-12 keywords it
// does not know, formats it cannot check exactly, $ref loops that consume
// no input, references outside the document) are refused with a
// *[SchemaError] naming the keyword, its location and why. A keyword the
// schema's dialect does not define is ignored, as the specification says;
// [Schema.Ignored] lists those.
//
// # Judging
//
// [Schema.Check] judges an answer in two stages — json-parse (the whole
// answer must be exactly one JSON value) and schema-validate — and returns
// a *[CheckError] with every issue at its JSON Pointer. [Schema.Judge] does
// the same for the final answer of a run without retries, naming the
// rewrite that broke a passing answer; [Schema.Decode] decodes a passing
// answer.
//
// # Repairs
//
// [Schema.WithRepairs] mends the form of an answer that fails as written
// before it is judged — a markdown fence, prose around the value,
// relaxed syntax, unquoted strings, separate values where a list is
// wanted, values spelled as strings ([Repairs]) — each exactly, never
// what a value is. [Schema.Repaired] says what a schema judges for
// an answer; rows and a [CheckError] name the repairs applied. Without
// repairs, both stages are strict.
//
// # Validators
//
// A JSON Schema says what shape an answer has, not that its date is in
// the future or its SKU in the catalogue. [NewValidator] makes a [Validator]
// of a function of the answer — the parsed JSON value, or the answer
// decoded into a Go type — and [Schema.WithValidators] joins it to the
// contract. Validators run on answers that keep the schema, in
// [Schema.Judge], [Ledger.Judge] and [Loop]; their issues fail the answer
// at schema-validate, each with the validator's name as its keyword, and
// join the same corrective turn. A validator sees the attempt and the
// retries left ([Try]), may say an answer is wrong beyond repair
// ([ErrBeyondRepair]), and one that fails or panics stops the run with a
// *[ValidatorError], never a crash.
//
// # Output kinds
//
// Not every answer is one JSON value. [Choice] and [MultiLabel] make a
// contract whose answer is one label of a set, or several; [Text] one
// whose answer is plain text held to rules ([TextRule]). Each is a
// *Schema of its [Kind]: it reads the model's text (a bare label, a JSON
// string, the object form tool and native modes send; the text as
// written) and judges it with the same stages, issues, ledger rows
// ([Attempt.Kind]), corrective turns, validators and early verdicts as
// a JSON answer. [RepairLabel] reads a near-miss label as the one label
// it spells. [Union] makes a contract whose answer is one of several
// named members, each its own schema ([Schema.Member] says which). [Schema.Instructions] is the contract in words for a
// prompt.
//
// # Judging as the answer streams
//
// [Schema.Stream] returns an [Incremental], fed the answer's bytes as they
// arrive. A write fails — with the *[CheckError] the whole answer gets —
// at the byte that dooms the answer, when no completion of what arrived
// can pass: prose before the JSON, a markdown fence, a member the schema
// refuses, a value of the wrong type or outside its enum. A loop can stop
// reading there and send the corrective turn at once. [Incremental.Close]
// gives the verdict of [Schema.Check] on the whole answer.
// [Incremental.Partial] gives the answer so far as one closed JSON document,
// to show a typed value as it forms, and the JSON Pointers of the
// members and items that are whole and already pass their subschema.
// [NewElements] delivers the elements of the answer's array one by one,
// each within the write that holds its closing byte, once it passes.
//
// # Retries and the ledger
//
// A [Ledger] judges the answers of one run against a retry budget: one
// [Attempt] row per answer, a [Verdict] whose Corrective is the message to
// send the model when an answer fails with retries left (see
// [CheckError.Corrective]), and an *[OutputError] when the run must stop —
// at once when a rewrite, not the model, broke a valid answer
// ([ErrBrokenBy]), when a validator says the answer is beyond repair
// ([ErrBeyondRepair]), when the model fails with the same issues as
// before, when the caller opted into [WithRepeatLimit] ([ErrRepeated]),
// or when retries run out ([ErrExhausted]). An exhausted row's [Reason] says which of
// these stopped it early. [Loop] drives a ledger around any loop.
//
// The corrective message is about the model's own answer: when act-output
// rewrote an answer the model got wrong, the row and the message describe
// what the model wrote, not the rewrite. Our words come first; the message
// ends with the issues, quoted as data.
//
// Tell the ledger why an answer ended when it ended early: truncated at
// the output limit ([Answer.Truncated]) or withheld ([Answer.Withheld]: a
// refusal, a content filter). Both rows say so. Give the answer without
// the model's thinking, and say how much there was ([Answer.Thinking]):
// an answer blank after it never came, and fails at [StageNoAnswer],
// its corrective message asking for the answer, not its syntax.
//
// # Bounds
//
// Answers and schemas of any size are met without a crash, within the
// bounds [MaxAnswerBytes], [MaxDepth], [MaxEnum], [MaxSchemaExpansion],
// [MaxCheckWork], [MaxQuote] and [MaxRetries], each named in the error
// that reports it being passed.
//
// Invalid UTF-8, duplicate keys, and numbers too large to compare exactly
// fail the json-parse stage.
//
// # Rooms
//
// This package is the public face of machinery in internal packages of
// its own: the schema engine and gojsonschema's compile and validate
// (internal/engine), [SchemaFor]'s reflection from a Go type
// (internal/reflected), the JSON reader (internal/jsonvalue), the repairs'
// mends (internal/repair), the incremental judge's scanner, which also
// delivers [Elements] (internal/scan), a choice's labels
// (internal/label), a text's rules (internal/textrule), a union's
// schema composition (internal/compose), the corrective message's
// writing (internal/corrective) and a validator's guarded call
// (internal/guard).
package enforce
