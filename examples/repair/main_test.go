package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/enforcer-go/enforcer/internal/readme"
)

// TestRepairPrintsWhatTheGuideShows: without repairs the fenced answer is
// corrected and fails again (two calls); with them it passes on one, its
// row naming the repairs. The output is the block docs/ledger.md shows.
func TestRepairPrintsWhatTheGuideShows(t *testing.T) {
	blocks, err := readme.ReadFile("../../docs/ledger.md")
	if err != nil {
		t.Fatal(err)
	}
	shown, err := readme.Find(blocks, "`go run ./examples/repair` prints:")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != shown.Text {
		t.Errorf("output:\n%s\ndocs/ledger.md line %d shows:\n%s", got, shown.Line, shown.Text)
	}
}
