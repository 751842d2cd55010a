package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestBrokenBy(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"model calls: 1 ",
		"broken by:   redact-customer",
		`"outcome": "exhausted"`,
		`"brokenBy": "redact-customer"`,
		"errors.Is(err, enforce.ErrBrokenBy) = true",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
