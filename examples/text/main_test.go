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
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	if err := readme.Shows("../../docs/output-kinds.md", "`go run ./examples/text` prints:", out.String()); err != nil {
		t.Error(err)
	}
}
