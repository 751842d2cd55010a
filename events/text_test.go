package events

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode"
)

// esc sets a terminal's title and clears its screen when printed raw.
const esc = "\x1b]0;owned\x07\x1b[2J"

func hasUnsafe(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool {
		return r != '\n' && unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
	})
}

func TestFreeTextLosesControlCharactersOnAppendAndRead(t *testing.T) {
	ev := SchemaExhausted{TurnID: "t1", Attempt: 1, Iteration: 1, Stage: "schema-validate",
		Error: "line one\nline two" + esc, Path: "/a\u202e", BrokenBy: "redact" + esc + "\u0085"}
	checked, err := checkEvent(ev) // what Append records
	if err != nil {
		t.Fatal(err)
	}
	got := checked.(SchemaExhausted)
	if got.Error != "line one\nline two]0;owned[2J" || got.Path != "/a" || got.BrokenBy != "redact]0;owned[2J" {
		t.Errorf("appended text = %q %q %q, want controls removed and the newline kept", got.Error, got.Path, got.BrokenBy)
	}

	// A line written by another program, holding the raw characters
	// (the event is not checked on the way out), reads back clean.
	rec := Record{Stream: "s1", Sequence: 1, ID: "x", Time: time.UnixMilli(0).UTC(), Event: ev}
	raw, err := rec.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `\u001b`) {
		t.Fatalf("the record line %s does not hold the raw escape", raw)
	}
	var back Record
	if err := back.UnmarshalJSON(raw); err != nil {
		t.Fatal(err)
	}
	if b := back.Event.(SchemaExhausted).BrokenBy; b != got.BrokenBy {
		t.Errorf("read brokenBy = %q, want the controls removed", b)
	}
}

func TestDescribeIsOneLineWithoutControlCharacters(t *testing.T) {
	params, err := json.Marshal(map[string]any{"turnId": "t1", "attempt": 1, "iteration": 1,
		"stage": "schema-validate", "error": "e", "brokenBy": "a\nb" + esc + "\u2066"})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []Notification{
		{JSONRPC: "2.0", Method: MethodSchemaExhausted, Params: params}, // a frame that was never checked
		{JSONRPC: "2.0", Method: "x/unknown" + esc},
	} {
		if d := n.Describe(0); hasUnsafe(d) || strings.Contains(d, "\n") {
			t.Errorf("Describe(%s) = %q, holds a control character", n.Method, d)
		}
	}
}
