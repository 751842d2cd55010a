package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestTheFantasyAgentIsCorrectedUnderTheContract(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"accepted: {City:Paris TempC:21}",
		`row: {"attempt":1,"iteration":1,"outcome":"retried","stage":"json-parse"`,
		`row: {"attempt":2,"iteration":2,"outcome":"passed","inputTokens":10,"outputTokens":5}`,
		"fantasy model calls: 3, usage: 30 in, 15 out",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
