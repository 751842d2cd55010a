package enforce_test

import (
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// wordsSchema admits, beside a string, the literal a bare word may
// spell: null at "middle_name", a boolean at "ok"; "sku" only a string.
const wordsSchema = `{"type": "object", "properties": {"sku": {"type": "string"},
	"middle_name": {"type": ["string", "null"]}, "ok": {"type": ["string", "boolean"]},
	"tags": {"type": "array", "items": {"type": "string"}}}}`

func TestQuoteLeavesAWordThatMaySpellALiteral(t *testing.T) {
	for _, answer := range []string{
		`{"middle_name": NULL}`, `{"middle_name": Null}`, `{"middle_name": nil}`, `{"middle_name": Nil}`,
		`{"middle_name": none}`, `{"middle_name": NONE}`, `{"ok": TRUE}`, `{"ok": FALSE}`, `{"ok": yes}`,
		`{"ok": No}`, `{"sku": NULL}`, `{"sku": nil}`, `{"sku": tRUE}`,
	} {
		for _, rs := range []enforce.Repairs{enforce.RepairQuote, enforce.AllRepairs} {
			s := mustCompile(t, wordsSchema).WithRepairs(rs)
			if err := s.Check(answer); err == nil {
				got, applied := s.Repaired(answer)
				t.Errorf("with %s, %s passed as %s (%s): a literal read as a string", rs, answer, got, applied)
			}
		}
	}
}

func TestQuoteStillQuotesAWordThatIsOnlyAWord(t *testing.T) {
	s := mustCompile(t, wordsSchema).WithRepairs(enforce.RepairQuote)
	for answer, want := range map[string]string{
		`{"sku": nullable}`:    `{"sku": "nullable"}`,
		`{"ok": yes}`:          ``, // a boolean in YAML 1.1, where a boolean is admitted
		`{"sku": yes}`:         `{"sku": "yes"}`,
		`{"middle_name": Ann}`: `{"middle_name": "Ann"}`,
		`{"sku": none yet}`:    `{"sku": "none yet"}`,
	} {
		got, _ := s.Repaired(answer)
		if err := s.Check(answer); (err == nil) != (want != "") || want != "" && got != want {
			t.Errorf("Repaired(%s) = %s, Check = %v; want %q", answer, got, err, want)
		}
	}
}

func TestCoerceReadsAStringifiedArrayExactlyOrNotAtAll(t *testing.T) {
	s := mustCompile(t, wordsSchema).WithRepairs(enforce.RepairCoerce)
	for answer, want := range map[string]string{
		`{"tags": "[\"a\", \"b\"]"}`: `{"tags": ["a", "b"]}`,
		`{"tags": "[]"}`:             `{"tags": []}`,
		`{"tags": "red"}`:            `{"tags": ["red"]}`,
		`{"tags": "a, b"}`:           ``,
		`{"tags": "a; b"}`:           ``,
		`{"tags": "[a, b]"}`:         ``,
		`{"tags": "[\"a\", 1]"}`:     ``,
		`{"tags": ""}`:               ``,
		`{"tags": null}`:             ``,
	} {
		got, applied := s.Repaired(answer)
		err := s.Check(answer)
		if want == "" {
			if err == nil {
				t.Errorf("%s passed as %s (%s)", answer, got, applied)
			}
			continue
		}
		if err != nil || got != want || applied != enforce.RepairCoerce {
			t.Errorf("Repaired(%s) = %s, %s, Check = %v; want %s", answer, got, applied, err, want)
		}
	}
}
