package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestWrapExistingLoop(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"accepted: {City:Oslo HighC:4}",
		`row: {"attempt":1,"iteration":1,"outcome":"retried","stage":"json-parse"`,
		`row: {"attempt":2,"iteration":2,"outcome":"passed"}`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
