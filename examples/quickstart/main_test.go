package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/internal/readme"
)

// TestQuickstartPrintsTheREADMEsOutput keeps the README's first command
// honest: the program's whole output is the block the README shows after
// "The quickstart prints:", line for line — the run fails twice (prose,
// then a wrong type), passes on the third attempt, and counts three
// replies from three requests.
func TestQuickstartPrintsTheREADMEsOutput(t *testing.T) {
	blocks, err := readme.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	shown, err := readme.Find(blocks, "The quickstart prints:")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	got, want := strings.Split(out.String(), "\n"), strings.Split(shown.Text, "\n")
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("README.md line %d:\n got: %q\nwant: %q", shown.Line+i, g, w)
		}
	}
}
