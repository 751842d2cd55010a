package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/enforcer-go/enforcer/internal/readme"
)

// TestThinkingPrintsWhatTheGuideShows: the reply cut while thinking is
// an answer that never came, asked for again; the one that thinks, then
// answers, passes with its thinking kept apart. The output is the block
// docs/ledger.md shows.
func TestThinkingPrintsWhatTheGuideShows(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	if err := readme.Shows("../../docs/ledger.md", "`go run ./examples/thinking` prints:", out.String()); err != nil {
		t.Error(err)
	}
}
