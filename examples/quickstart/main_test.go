package main

import (
	"bytes"
	"context"
	"regexp"
	"testing"
)

// TestQuickstart keeps the README's first command from rotting: the run
// fails twice (prose, then a wrong type) and passes on the third attempt.
func TestQuickstart(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, want := range []string{
		`(?m)^\s+1\s+1\s+retried\s+json-parse\s`,
		`(?m)^\s+2\s+2\s+retried\s+schema-validate\s+/tempC\s`,
		`(?m)^\s+3\s+3\s+passed\s`,
		`attempt 1/3 · retrying now · answer broke the output contract at json-parse`,
		`attempt 2/3 · retrying now · answer broke the output contract at schema-validate /tempC`,
		`accepted on attempt 3: \{City:Paris TempC:21 Sky:clear\}`,
	} {
		if !regexp.MustCompile(want).Match(out.Bytes()) {
			t.Errorf("output lacks %s:\n%s", want, out.String())
		}
	}
}
