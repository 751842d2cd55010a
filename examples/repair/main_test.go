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
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	if err := readme.Shows("../../docs/ledger.md", "`go run ./examples/repair` prints:", out.String()); err != nil {
		t.Error(err)
	}
}
