package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/enforcer-go/enforcer/internal/readme"
)

// TestQuickstartPrintsTheREADMEsOutput keeps the README's first command
// honest: the program's whole output is the block the README shows after
// "The quickstart prints:", line for line — the run fails twice (prose,
// then a wrong type), passes on the third attempt, and counts three
// replies from three requests.
func TestQuickstartPrintsTheREADMEsOutput(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if err := readme.Shows("../../README.md", "The quickstart prints:", out.String()); err != nil {
		t.Error(err)
	}
}
