package enforce_test

import (
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// Words a model writes for a value it may not mean: each text reads two
// ways, and every repair together leaves it, so the model is asked.
func TestRepairsLeaveWhatReadsTwoWays(t *testing.T) {
	const nullable = `{"type":"object","properties":{"m":{"type":["string","null"]},"tags":{"type":"array","items":{"type":"string"}}}}`
	for _, tc := range []struct{ name, schema, text string }{
		{"an alternative after a dash", repairSchema, `{"sku": "A-1", "qty": 2} — or B7, I'm not certain.`},
		{"an answer in doubt", repairSchema, `{"sku": "A-1", "qty": 2} (not sure, could be B7)`},
		{"an answer called incorrect", repairSchema, "{\"sku\": \"A-1\", \"qty\": 2}\nThat is incorrect."},
		{"an answer to ignore", repairSchema, "{\"sku\": \"A-1\", \"qty\": 2}\nIgnore the above."},
		{"a call if another fails", callsSchema, "{\"name\": \"a\"}\nif that fails, {\"name\": \"b\"}"},
		{"a call if a place is full", callsSchema, "{\"name\": \"a\"}\nIf Paris is full, {\"name\": \"b\"}"},
		{"options", callsSchema, "Option A: {\"name\": \"a\"}\nOption B: {\"name\": \"b\"}"},
		{"versus", callsSchema, "{\"name\": \"a\"}\nvs\n{\"name\": \"b\"}"},
		{"a slash", callsSchema, `{"name": "a"} / {"name": "b"}`},
		{"a replacement", callsSchema, "{\"name\": \"a\"}\nreplace with {\"name\": \"b\"}"},
		{"no, this one", callsSchema, "Call this: {\"name\": \"a\"}\nNo, call this: {\"name\": \"b\"}"},
		{"an alternative in French", callsSchema, "{\"name\": \"a\"}\nou plutôt\n{\"name\": \"b\"}"},
		{"R's NA", nullable, `{"m": NA}`},
		{"Visual Basic's Nothing", nullable, `{"m": Nothing}`},
		{"a list joined by and", nullable, `{"tags": "salt and pepper"}`},
		{"a list joined by a slash", nullable, `{"tags": "red/blue"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustCompile(t, tc.schema).WithRepairs(enforce.AllRepairs)
			if err := s.Check(tc.text); err == nil {
				got, applied := s.Repaired(tc.text)
				t.Errorf("%q passes, mended to %q by %s: it reads two ways", tc.text, got, applied)
			}
		})
	}
}

// A list the model numbered, or set out with nothing but fences between
// its values, reads one way, whatever the prose in each part says.
func TestGatherStillJoinsAListSetOut(t *testing.T) {
	for _, text := range []string{
		"We need two calls:\n\n1. To check if it is open, or closed:\n```json\n{\"name\": \"a\"}\n```\n\n2. To find updates or patches:\n```json\n{\"name\": \"b\"}\n```",
		"```json\n{\"name\": \"a\"}\n```\n```json\n{\"name\": \"b\"}\n```",
		"First:\n{\"name\": \"a\"}\nThen:\n{\"name\": \"b\"}",
		"Calls:\n1. {\"name\": \"a\"}\n2. {\"name\": \"b\"},\n{\"name\": \"c\"}",
	} {
		s := mustCompile(t, callsSchema).WithRepairs(enforce.AllRepairs)
		if err := s.Check(text); err != nil {
			t.Errorf("%q: %v, want it gathered", text, err)
		}
	}
}
