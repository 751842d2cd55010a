package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestEarlyAbort runs the example: both doomed answers are stopped at the
// byte that dooms them, the model writes about half of what its replies
// would have taken, and the value is seen forming and starting over.
func TestEarlyAbort(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		`attempt 1: retried — cut at json-parse "" after 1 of 77 bytes`,
		`attempt 2: retried — cut at schema-validate "/stops/1" after 35 of 57 bytes`,
		"attempt 3: passed",
		"the model wrote 94 of the 186 bytes",
		`the conversation keeps the cut answers: "S", "{\"city\":\"Paris\",\"stops\":[\"Louvre\",t"`,
		`attempt 2 forming: {City:Par Stops:[] Days:0} settled []`,
		"(a retried attempt: the value starts over)\nattempt 3 forming: {City: Stops:[] Days:0} settled []",
		`attempt 3 forming: {City:Paris Stops:[Louvre Orsay] Days:3} settled ["/city" "/stops/0" "/stops/1" "/stops" "/days"]`,
		"result: {City:Paris Stops:[Louvre Orsay] Days:3}",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
