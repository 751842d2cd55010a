package native_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/providers/native"
)

// person is Person lowered for OpenAI strict: nick, age and email are
// sent as required and nullable.
func person(t testing.TB) *native.Lowering {
	t.Helper()
	l, err := native.Lower([]byte(`{"$ref":"#/$defs/Person","$defs":{"Person":{"type":"object","properties":{
		"name":{"type":"string"},"nick":{"type":"string"},"age":{"type":"integer"},"email":{"type":"string"},
		"note":{"type":["string","null"]},
		"address":{"$ref":"#/$defs/Address"},"friends":{"type":"array","items":{"$ref":"#/$defs/Person"}}},
		"required":["name"],"additionalProperties":false},
		"Address":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string"}},"required":["city"],"additionalProperties":false}}}`), native.OpenAI)
	if err != nil {
		t.Fatal(err)
	}
	if l.Report.Mode != native.ModeStrict {
		t.Fatalf("mode %s (%s), want strict", l.Report.Mode, l.Report.Reason)
	}
	return l
}

func TestReadBackRemovesOnlyTheNullsTheLoweringIntroduced(t *testing.T) {
	l := person(t)
	tests := []struct {
		name, answer, want string
		removed            []string
	}{
		{"a null for every optional member reads as each left out",
			`{"name":"Ada","nick":null,"age":null,"email":null,"note":null,"address":null,"friends":null}`,
			`{"name":"Ada","note":null}`, []string{"/nick", "/age", "/email", "/address", "/friends"}},
		{"a first member removed takes its following comma",
			`{"nick":null,"name":"Ada"}`, `{"name":"Ada"}`, []string{"/nick"}},
		{"whitespace around a removed member is kept but for what came with it",
			"{ \"nick\" : null , \"name\":\"Ada\" }", "{  \"name\":\"Ada\" }", []string{"/nick"}},
		{"every member removed leaves an empty object",
			`{"nick":null,"age":null}`, `{}`, []string{"/nick", "/age"}},
		{"a value that is not null stays", `{"name":"Ada","nick":"A"}`, `{"name":"Ada","nick":"A"}`, nil},
		{"a null for a required member stays, to be judged", `{"name":null}`, `{"name":null}`, nil},
		{"a null the contract takes itself stays", `{"name":"Ada","note":null}`, `{"name":"Ada","note":null}`, nil},
		{"members of nested objects and array items are read back by their own schema",
			`{"name":"Ada","address":{"city":"Paris","zip":null},"friends":[{"name":"Bo","nick":null},{"age":null,"name":"Cy"}]}`,
			`{"name":"Ada","address":{"city":"Paris"},"friends":[{"name":"Bo"},{"name":"Cy"}]}`,
			[]string{"/address/zip", "/friends/0/nick", "/friends/1/age"}},
		{"a key written with escapes is the member it names",
			`{"name":"Ada","n\u0069ck":null}`, `{"name":"Ada"}`, []string{"/nick"}},
		{"a member of an unknown name stays", `{"name":"Ada","other":null}`, `{"name":"Ada","other":null}`, nil},
		{"text inside a string is not read", `{"name":"\"nick\":null"}`, `{"name":"\"nick\":null"}`, nil},
		{"prose passes as it is", `Here it is: {"nick":null}`, `Here it is: {"nick":null}`, nil},
		{"a trailing comma after a removed first member stays not JSON",
			`{"nick":null,}`, `{"nick":null,}`, nil},
		{"nullx is not null", `{"nick":nullx}`, `{"nick":nullx}`, nil},
		{"a truncated answer keeps what it held", `{"name":"Ada","nick":nu`, `{"name":"Ada","nick":nu`, nil},
		{"text after the answer passes", `{"nick":null} and more`, `{} and more`, []string{"/nick"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, removed := l.Text(tt.answer)
			if got != tt.want || !slices.Equal(removed, tt.removed) {
				t.Errorf("Text(%s) = %s, %q; want %s, %q", tt.answer, got, removed, tt.want, tt.removed)
			}
			// Read as a stream arrives, a byte at a time, it is the same.
			rb := l.ReadBack()
			var streamed string
			for i := range len(tt.answer) {
				streamed += rb.Write(tt.answer[i : i+1])
			}
			streamed += rb.Close()
			if streamed != tt.want || !slices.Equal(rb.Removed(), tt.removed) {
				t.Errorf("streamed: %s, %q; want %s, %q", streamed, rb.Removed(), tt.want, tt.removed)
			}
		})
	}
}

func TestReadBackWithNothingMadeNullablePassesTextThrough(t *testing.T) {
	l, err := native.Lower([]byte(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`), native.OpenAI)
	if err != nil {
		t.Fatal(err)
	}
	for _, answer := range []string{`{"a":null}`, `{"b":null}`, "not json"} {
		if got, removed := l.Text(answer); got != answer || removed != nil {
			t.Errorf("Text(%s) = %s, %q; want it unchanged", answer, got, removed)
		}
	}
	var nilRB *native.ReadBack
	if got := nilRB.Write("x") + nilRB.Close(); got != "x" {
		t.Errorf("a nil ReadBack gave %q, want the text", got)
	}
}

// FuzzReadBack holds the read-back to its laws: read whole or in pieces
// it is the same; JSON stays JSON, with exactly the removed members gone;
// what is not JSON stays not JSON.
func FuzzReadBack(f *testing.F) {
	for _, s := range []string{
		`{"name":"Ada","nick":null}`, `{"nick":null,"name":"Ada"}`, `{"nick":null,}`,
		`{"friends":[{"nick":null,"age":null}],"address":{"zip":null,"city":"x"}}`,
		`[{"nick":null}]`, `{"nick" : null  }`, `{"nick":null`, `null`, `{"a":[1,2,{"nick":null}]}`,
	} {
		f.Add(s, 3)
	}
	l := person(f)
	f.Fuzz(func(t *testing.T, answer string, piece int) {
		whole, removed := l.Text(answer)
		rb := l.ReadBack()
		piece = max(1, piece%17)
		var streamed string
		for i := 0; i < len(answer); i += piece {
			streamed += rb.Write(answer[i:min(len(answer), i+piece)])
		}
		streamed += rb.Close()
		if streamed != whole || !slices.Equal(rb.Removed(), removed) {
			t.Fatalf("in pieces of %d: %q, %q; whole: %q, %q", piece, streamed, rb.Removed(), whole, removed)
		}
		if !json.Valid([]byte(answer)) {
			if json.Valid([]byte(whole)) {
				t.Fatalf("%q is not JSON, but its read-back %q is", answer, whole)
			}
			return
		}
		var in, out any
		if json.Unmarshal([]byte(answer), &in) != nil || json.Unmarshal([]byte(whole), &out) != nil {
			t.Fatalf("%q is JSON, but its read-back %q is not", answer, whole)
		}
		if duplicateKeys(answer) {
			return // decoding keeps one of the members named twice; the judge refuses them
		}
		for _, p := range removed {
			if !deleteAt(in, p) {
				t.Fatalf("removed %s, which %q has no null at", p, answer)
			}
		}
		if !reflect.DeepEqual(in, out) {
			t.Fatalf("read-back of %q is %q: more changed than the members removed (%q)", answer, whole, removed)
		}
	})
}

// deleteAt deletes the member at a JSON Pointer of a decoded tree,
// reporting whether it was there and null.
func deleteAt(v any, ptr string) bool {
	toks := strings.Split(ptr, "/")[1:]
	for i, tok := range toks {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := v.(type) {
		case map[string]any:
			if i == len(toks)-1 {
				x, ok := c[tok]
				delete(c, tok)
				return ok && x == nil
			}
			v = c[tok]
		case []any:
			n, err := strconv.Atoi(tok)
			if err != nil || n < 0 || n >= len(c) {
				return false
			}
			v = c[n]
		default:
			return false
		}
	}
	return false
}

// duplicateKeys reports an object in s with a member named twice, which
// decoding hides.
func duplicateKeys(s string) bool {
	d := json.NewDecoder(strings.NewReader(s))
	type obj struct {
		seen  map[string]bool
		inObj bool
		key   bool
	}
	var stack []obj
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		top := func() *obj { return &stack[len(stack)-1] }
		switch tok {
		case json.Delim('{'):
			if len(stack) > 0 && top().inObj {
				top().key = true
			}
			stack = append(stack, obj{seen: map[string]bool{}, inObj: true, key: true})
			continue
		case json.Delim('['):
			if len(stack) > 0 && top().inObj {
				top().key = true
			}
			stack = append(stack, obj{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			continue
		}
		if len(stack) == 0 || !top().inObj {
			continue
		}
		if top().key {
			k := tok.(string)
			if top().seen[k] {
				return true
			}
			top().seen[k] = true
			top().key = false
		} else {
			top().key = true
		}
	}
}
