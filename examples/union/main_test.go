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
	blocks, err := readme.ReadFile("../../docs/output-kinds.md")
	if err != nil {
		t.Fatal(err)
	}
	shown, err := readme.Find(blocks, "`go run ./examples/union` prints:")
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
