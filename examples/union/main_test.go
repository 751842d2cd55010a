package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/enforcer-go/enforcer/internal/readme"
)

// TestUnionPrintsWhatTheGuideShows: the answer naming two members and
// the one naming none are each corrected, the second with each member's
// issues; the third passes as an escalation, which the type switch
// gets. The output is the block docs/output-kinds.md shows.
func TestUnionPrintsWhatTheGuideShows(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	if err := readme.Shows("../../docs/output-kinds.md", "`go run ./examples/union` prints:", out.String()); err != nil {
		t.Error(err)
	}
}
