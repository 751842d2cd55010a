package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestTheGenerateCallIsCorrectedUnderTheContract(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"stream: message 3 is a corrective turn",
		`row: {"attempt":1,"iteration":2,"outcome":"retried","stage":"json-parse"`,
		`row: {"attempt":2,"iteration":3,"outcome":"passed"`,
		"accepted: {City:Paris TempC:21}",
		"model calls: 3, tokens: 300 in, 36 out",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
