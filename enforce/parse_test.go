package enforce_test

import (
	"regexp"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// anything admits every JSON value, so only the json-parse stage can fail.
func anything(t testing.TB) *enforce.Schema {
	t.Helper()
	return mustCompile(t, `{}`)
}

var lineCol = regexp.MustCompile(`^line (\d+), column (\d+): `)

func TestParseRefusesAnythingButOneValue(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		at     string // "line L, column C"
	}{
		{"trailing text fails", `{"a":1} done`, "line 1, column 9"},
		{"a second value fails", `{"a":1}{"b":2}`, "line 1, column 8"},
		{"a second value after a newline fails", "1\n2", "line 2, column 1"},
		{"a markdown json fence fails", "```json\n{\"a\":1}\n```", "line 1, column 1"},
		{"prose before the value fails", `Here you go: {"a":1}`, "line 1, column 1"},
		{"an empty answer fails", ``, "line 1, column 1"},
		{"whitespace only fails", "  \n\t ", "line 2, column 3"},
		{"an unclosed object fails", `{"a":1`, "line 1, column 7"},
		{"a trailing comma fails", `[1,2,]`, "line 1, column 6"},
		{"a single-quoted string fails", `'a'`, "line 1, column 1"},
		{"a byte order mark fails", "\uFEFF{}", "line 1, column 1"},
		{"NaN fails", `NaN`, "line 1, column 1"},
		{"NaN inside an object fails", `{"a": NaN}`, "line 1, column 7"},
		{"Infinity fails", `Infinity`, "line 1, column 1"},
		{"-Infinity fails", `-Infinity`, "line 1, column 2"},
		{"invalid UTF-8 in a string fails", "\"a\xffb\"", "line 1, column 3"},
		{"invalid UTF-8 in a key fails", "{\"\xc3\":1}", "line 1, column 3"},
		{"invalid UTF-8 outside a string fails", "\xff", "line 1, column 1"},
		{"invalid UTF-8 after the value fails", "{}\xff", "line 1, column 3"},
		{"a truncated UTF-8 sequence at the end of a string fails", "\"\xe2\x82\"", "line 1, column 2"},
		{"a duplicate key fails", `{"a":1,"a":2}`, "line 1, column 8"},
		{"a duplicate key spelled with an escape fails", `{"a":1,"\u0061":2}`, "line 1, column 8"},
		{"a duplicate key spelled with two escapes fails", `{"\u0061b":1,"a\u0062":2}`, "line 1, column 14"},
		{"a duplicate key in a nested object fails", "{\"x\":\n {\"b\":1, \"b\":1}}", "line 2, column 10"},
		{"a raw tab in a string fails", "\"a\tb\"", "line 1, column 3"},
		{"a raw newline in a string fails", "\"a\nb\"", "line 1, column 3"},
		{"a raw NUL in a string fails", "\"a\x00\"", "line 1, column 3"},
		{"a raw control character after an escape fails", "\"\\n\x01\"", "line 1, column 4"},
		{"an invalid escape fails", `"\x"`, "line 1, column 2"},
		{"a short \\u escape fails", `"\u12"`, "line 1, column 2"},
		{"a leading zero fails", `01`, "line 1, column 2"},
		{"a negative leading zero fails", `-01`, "line 1, column 3"},
		{"a lone minus fails", `-`, "line 1, column 2"},
		{"a plus sign fails", `+1`, "line 1, column 1"},
		{"a missing fraction fails", `1.`, "line 1, column 3"},
		{"a missing integer part fails", `.5`, "line 1, column 1"},
		{"a missing exponent fails", `1e`, "line 1, column 3"},
		{"a signed missing exponent fails", `1e+`, "line 1, column 4"},
		{"a hex number fails", `0x1F`, "line 1, column 2"},
		{"an unterminated string fails", `"abc`, "line 1, column 5"},
		{"a bare word fails", `yes`, "line 1, column 1"},
		{"a truncated literal fails", `tru`, "line 1, column 1"},
		{"a comment fails", "// note\n{}", "line 1, column 1"},
	}
	s := anything(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ce := checkError(t, s.Check(tt.answer))
			if got, want := ce.Stage, enforce.StageJSONParse; got != want {
				t.Fatalf("Stage = %q, want %q", got, want)
			}
			if got, want := len(ce.Issues), 1; got != want {
				t.Fatalf("len(Issues) = %d, want %d", got, want)
			}
			is := ce.Issues[0]
			if got, want := is.Keyword, "json"; got != want {
				t.Errorf("Keyword = %q, want %q", got, want)
			}
			if got, want := is.Path, ""; got != want {
				t.Errorf("Path = %q, want %q", got, want)
			}
			m := lineCol.FindStringSubmatch(is.Message)
			if m == nil {
				t.Fatalf("Message = %q, want it to start with line:column", is.Message)
			}
			if got, want := "line "+m[1]+", column "+m[2], tt.at; got != want {
				t.Errorf("position = %s, want %s (message %q)", got, want, is.Message)
			}
		})
	}
}

func TestParseAcceptsOneValue(t *testing.T) {
	tests := []struct {
		name   string
		answer string
	}{
		{"an object with surrounding whitespace passes", " \r\n\t{\"a\": [1, 2]}\n\n "},
		{"a string passes", `"x"`},
		{"an empty string passes", `""`},
		{"zero passes", `0`},
		{"negative zero passes", `-0`},
		{"a fraction passes", `-0.5`},
		{"an exponent passes", `1.5e+10`},
		{"an upper-case negative exponent passes", `1E-2`},
		{"true passes", `true`},
		{"false passes", `false`},
		{"null passes", `null`},
		{"an empty array passes", `[]`},
		{"an empty object passes", `{}`},
		{"every escape passes", `"\" \\ \/ \b \f \n \r \t \u00e9"`},
		{"a surrogate pair passes", `"\ud83d\ude00"`},
		{"a lone high surrogate passes", `"\ud800"`},
		{"a lone low surrogate passes", `"\udc00x"`},
		{"two high surrogates pass", `"\ud800\ud800"`},
		{"DEL unescaped passes", "\"\x7f\""},
		{"multi-byte UTF-8 passes", `{"città": "Zürich 東京 😀"}`},
		{"keys that differ only in case pass", `{"a":1,"A":2}`},
		{"equal keys in sibling objects pass", `[{"a":1},{"a":1}]`},
	}
	s := anything(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.Check(tt.answer); err != nil {
				t.Errorf("Check(%q) = %v, want nil", tt.answer, err)
			}
		})
	}
}

// Escapes decode before validation: the schema sees the characters, and a
// lone surrogate becomes U+FFFD as it does in encoding/json.
func TestParseDecodesEscapes(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		answer string
	}{
		{"a \\u escape equals its character", `{"const": "a"}`, `"\u0061"`},
		{"a surrogate pair equals its character", `{"const": "😀"}`, `"\ud83d\ude00"`},
		{"a lone surrogate equals U+FFFD", `{"const": "\ufffd"}`, `"\ud800"`},
		{"an escaped key names its member", `{"required": ["a/b"]}`, `{"a\/b": 1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := mustCompile(t, tt.schema).Check(tt.answer); err != nil {
				t.Errorf("Check(%s) = %v, want nil", tt.answer, err)
			}
		})
	}
}
