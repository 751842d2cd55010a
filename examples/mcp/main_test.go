package main

import (
	"bytes"
	"context"
	"testing"
)

// TestItRuns runs the example as `go run` would, and checks what it
// prints: the broken result recorded and shown to the model as an error,
// the second call's result, and the answer.
func TestItRuns(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	want := `recorded: forecast (call call-1) broke its output schema at /tempC: Invalid type. Expected: number, given: string
the model saw (call call-1): error: mcp: the result of tool "forecast" breaks its output schema and was not used: schema-validate: /tempC: Invalid type. Expected: number, given: string
the model saw (call call-2): {"city":"Paris","tempC":21}
attempt 1: passed
answer: {City:Paris TempC:21}
`
	if got := out.String(); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}
