package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestStream runs the example with zero-length delays: the same server,
// client and notifications, without waiting.
func TestStream(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, 0); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"attempt 1/3 · retrying now · rate limited",
		"attempt 2/3 · retrying now · provider overloaded",
		"turn completed",
		"answer: Here is your summary.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
