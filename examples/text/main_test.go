package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/enforcer-go/enforcer/internal/readme"
)

// TestPrintsWhatTheGuideShows: the output is the block docs/output-kinds.md
// shows under its go run line.
func TestPrintsWhatTheGuideShows(t *testing.T) {
	blocks, err := readme.ReadFile("../../docs/output-kinds.md")
	if err != nil {
		t.Fatal(err)
	}
	shown, err := readme.Find(blocks, "`go run ./examples/text` prints:")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != shown.Text {
		t.Errorf("output:\n%s\ndocs/output-kinds.md line %d shows:\n%s", got, shown.Line, shown.Text)
	}
}
