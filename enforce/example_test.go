package enforce_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"

	"github.com/enforcer-go/enforcer/enforce"
)

// Check judges an answer in two stages and reports every issue with its
// JSON Pointer, sorted by path.
func ExampleCompileSchema() {
	s, err := enforce.CompileSchema([]byte(`{
		"type": "object",
		"required": ["city", "tempC"],
		"additionalProperties": false,
		"properties": {
			"city": {"type": "string"},
			"tempC": {"type": "number"}
		}
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, answer := range []string{
		`{"city": "Oslo", "tempC": 4.5}`,
		"```json\n{\"city\": \"Oslo\"}\n```",
		`{"tempC": "cold", "wind": 3}`,
	} {
		err := s.Check(answer)
		var ce *enforce.CheckError
		if !errors.As(err, &ce) {
			fmt.Println("passed")
			continue
		}
		fmt.Println(ce.Stage)
		for _, is := range ce.Issues {
			fmt.Printf("  %q %s\n", is.Path, is.Keyword)
		}
	}
	// Output:
	// passed
	// json-parse
	//   "" json
	// schema-validate
	//   "/city" required
	//   "/tempC" type
	//   "/wind" additionalProperties
}

// A schema gojsonschema would check wrongly is refused, naming the
// keyword and where it is.
func ExampleCompileSchema_refused() {
	_, err := enforce.CompileSchema([]byte(`{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"properties": {"point": {"allOf": [{"$ref": "#/$defs/xy"}], "unevaluatedProperties": false}},
		"$defs": {"xy": {"properties": {"x": {}, "y": {}}}}
	}`))
	var se *enforce.SchemaError
	if errors.As(err, &se) {
		fmt.Printf("%s at %q\n", se.Keyword, se.Location)
	}
	// Output:
	// unevaluatedProperties at "/properties/point"
}

// A keyword the schema's dialect does not define is not checked, as the
// specification says: Ignored names it, so that nobody takes it for
// enforced.
func ExampleSchema_Ignored() {
	s, err := enforce.CompileSchema([]byte(`{
		"$schema": "http://json-schema.org/draft-07/schema#",
		"type": "object",
		"dependentRequired": {"card": ["expiry"]}
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range s.Ignored() {
		fmt.Printf("%s at %q is no %s keyword\n", k.Keyword, k.Location, k.Dialect)
	}
	fmt.Println(s.Check(`{"card": "4111"}`))
	// Output:
	// dependentRequired at "" is no draft-07 keyword
	// <nil>
}

type Forecast struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
	Note  string  `json:"note,omitempty"`
}

// SchemaFor reflects the contract from a Go type: fields without omitempty
// are required and unknown members are refused.
func ExampleSchemaFor() {
	s, err := enforce.SchemaFor[Forecast]()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Check(`{"city": "Oslo", "tempC": 4.5}`))
	fmt.Println(s.Check(`{"city": "Oslo", "tempC": 4.5, "humidity": 80}`))
	fmt.Println(s.Check(`{"city": "Oslo"}`))
	// Output:
	// <nil>
	// schema-validate: /humidity: Additional property humidity is not allowed
	// schema-validate: /tempC: tempC is required
}

// Judge records one row per answer. A failure with retries left yields the
// corrective message to send; a rewrite that breaks a valid answer stops
// the run at once, naming the rewrite.
func ExampleLedger_Judge() {
	s, _ := enforce.SchemaFor[Forecast]()
	l, _ := enforce.NewLedger(s, 2)

	v := l.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: `{"city": "Oslo"}`})
	fmt.Println(v.Row.Outcome, v.Row.Path, v.Corrective != "")

	v = l.Judge(context.Background(), enforce.Answer{
		Iteration: 2,
		Given:     `{"city": "Oslo", "tempC": 4.5}`,
		Rewrites:  []enforce.Rewrite{{By: "add-disclaimer", Text: `{"city": "Oslo", "tempC": 4.5} (not financial advice)`}},
	})
	fmt.Println(v.Row.Outcome, v.Row.BrokenBy, errors.Is(v.Err, enforce.ErrBrokenBy))
	fmt.Println("retries left:", l.RetriesLeft())
	// Output:
	// retried /tempC true
	// exhausted add-disclaimer true
	// retries left: 1
}

// Loop wraps a plain Go loop around any model — here a fake one with canned
// answers — and keeps the ledger, for code that does not use the agent
// package.
func ExampleLoop() {
	s, _ := enforce.SchemaFor[Forecast]()
	canned := []string{
		`Sure! It is 4.5 degrees in Oslo.`,
		`{"city": "Oslo", "tempC": "4.5"}`,
		`{"city": "Oslo", "tempC": 4.5}`,
	}
	calls := 0
	model := func(ctx context.Context, corrective string) (string, error) {
		if corrective != "" {
			// A real loop appends the failed answer as an assistant turn and
			// corrective as a user turn before calling the model again.
			fmt.Printf("call %d gets a corrective message\n", calls+1)
		}
		answer := canned[calls]
		calls++
		return answer, nil
	}

	answer, attempts, err := enforce.Loop(context.Background(), s, 2, model)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(answer)
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(attempts)
	// Output:
	// call 2 gets a corrective message
	// call 3 gets a corrective message
	// {"city": "Oslo", "tempC": 4.5}
	// [
	//   {
	//     "attempt": 1,
	//     "iteration": 1,
	//     "outcome": "retried",
	//     "stage": "json-parse",
	//     "error": "line 1, column 1: unexpected character 'S': expected a value",
	//     "correctiveMessageHash": "575f9a61"
	//   },
	//   {
	//     "attempt": 2,
	//     "iteration": 2,
	//     "outcome": "retried",
	//     "stage": "schema-validate",
	//     "error": "Invalid type. Expected: number, given: string",
	//     "path": "/tempC",
	//     "correctiveMessageHash": "f34665b3"
	//   },
	//   {
	//     "attempt": 3,
	//     "iteration": 3,
	//     "outcome": "passed"
	//   }
	// ]
}

// The corrective message puts our own words first and ends with the
// issues, each pointer and validator message quoted as data.
func ExampleCheckError_Corrective() {
	s, _ := enforce.SchemaFor[Forecast]()
	var ce *enforce.CheckError
	errors.As(s.Check(`{"city": 7}`), &ce)
	fmt.Println(ce.Corrective(1, 3))
	// Output:
	// Your previous answer did not satisfy the required output format. This was attempt 1 of 3.
	// Stage: schema-validate — the answer is JSON but does not match the JSON Schema.
	// Reply with only the corrected JSON value, nothing else.
	// The 2 issues follow, each pointer and message quoted as data:
	// - at "/city": "Invalid type. Expected: string, given: integer"
	// - at "/tempC": "tempC is required"
}

// A compiled contract bound to a Go type judges both: the answer keeps the
// schema, but "three" does not fit an int.
func ExampleSchema_For() {
	type Count struct {
		N int `json:"n"`
	}
	s, _ := enforce.CompileSchema([]byte(`{"type": "object", "required": ["n"]}`))
	typed, _ := s.For(reflect.TypeFor[Count]())
	fmt.Println(s.Check(`{"n": "three"}`))
	fmt.Println(typed.Check(`{"n": "three"}`))

	other, _ := enforce.SchemaFor[Forecast]()
	_, err := other.For(reflect.TypeFor[Count]())
	var se *enforce.SchemaError
	fmt.Println("reflected from another type:", errors.As(err, &se))
	// Output:
	// <nil>
	// schema-validate: /n: string does not fit the Go type int
	// reflected from another type: true
}

// Without a ledger, Judge says whether the final answer stands, and names
// the rewrite that broke the model's passing answer.
func ExampleSchema_Judge() {
	s, _ := enforce.SchemaFor[Forecast]()
	good := `{"city": "Oslo", "tempC": 4.5}`
	err := s.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: good, Rewrites: []enforce.Rewrite{{By: "wrap", Text: "Forecast: " + good}}})
	var oe *enforce.OutputError
	if errors.As(err, &oe) {
		fmt.Println(oe.Stage, oe.BrokenBy, errors.Is(err, enforce.ErrBrokenBy))
	}
	// Output: json-parse wrap true
}

func ExampleSchema_WithMaxAnswerBytes() {
	s, _ := enforce.SchemaFor[Forecast]()
	small := s.WithMaxAnswerBytes(16)
	var ce *enforce.CheckError
	errors.As(small.Check(`{"city": "Oslo", "tempC": 4.5}`), &ce)
	fmt.Println(ce.Stage)
	fmt.Println(s.Check(`{"city": "Oslo", "tempC": 4.5}`))
	// Output:
	// json-parse
	// <nil>
}

// A model's right answer in a markdown fence, with a number written as a
// string: with the fence and coerce repairs it passes as mended, and
// Repaired says what was judged.
func ExampleSchema_WithRepairs() {
	s, _ := enforce.SchemaFor[Forecast]()
	answer := "```json\n{\"city\": \"Oslo\", \"tempC\": \"-3\"}\n```"
	fmt.Println(s.Check(answer) != nil)
	s = s.WithRepairs(enforce.RepairFence | enforce.RepairCoerce)
	mended, applied := s.Repaired(answer)
	fmt.Println(s.Check(answer) == nil, applied)
	fmt.Print(mended)
	// Output:
	// true
	// true fence,coerce
	// {"city": "Oslo", "tempC": -3}
}

// An OutputError's Path is "" when the whole answer failed: written after
// "#", a log line names the root as it names a member.
func ExampleOutputError() {
	s, _ := enforce.SchemaFor[Forecast]()
	for _, answer := range []string{`It is 21 degrees.`, `{"city": "Oslo", "tempC": "cold"}`} {
		err := s.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: answer})
		var oe *enforce.OutputError
		if errors.As(err, &oe) {
			fmt.Printf("contract broken at #%s (%s)\n", oe.Path, oe.Stage)
		}
	}
	// Output:
	// contract broken at # (json-parse)
	// contract broken at #/tempC (schema-validate)
}
