package enforce

import (
	"encoding/json"
	"errors"
	"github.com/enforcer-go/enforcer/enforce/internal/engine"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
	"github.com/xeipuuv/gojsonschema"
)

// FuzzStream holds the Incremental to the whole-answer judge. From the fuzz
// bytes it builds a schema (mostly from the subset the Incremental judges
// early, sometimes not: anyOf, not, $ref, patternProperties; an empty
// seed means fuzzSchema), an answer that tries to pass it, and a
// mutation of that answer; it judges those and the given answer, in
// chunks of every size from one byte, and at a cut point. It asserts:
//
//   - an early json-parse verdict is Check's verdict on the whole answer
//     and on other completions of what was read;
//   - an early schema-validate issue is among Check's issues on every
//     completion that parses (the whole answer, and one built by closing
//     what is open), and no completion tried passes;
//   - an answer that passes Check is never failed early, nor is any
//     mutation of it before the first byte where the two differ;
//   - without an early verdict, Close is Check, and what was read can be
//     completed into one JSON value;
//   - the verdict and where it lands do not depend on the chunk size.
func FuzzStream(f *testing.F) {
	for _, a := range seedAnswers(f) {
		f.Add([]byte{}, a, []byte{}, byte(15))
	}
	f.Fuzz(func(t *testing.T, schemaSeed []byte, answer string, mutation []byte, chunk byte) {
		g := &fuzzGen{b: schemaSeed}
		var s *Schema
		var doc any
		if len(schemaSeed) == 0 {
			s = mustCompileInternal(t, fuzzSchema)
			_ = json.Unmarshal([]byte(fuzzSchema), &doc)
		} else {
			dialect := g.pick(4)
			g.draft4 = dialect == 1
			doc = g.schema(0)
			if m, ok := doc.(map[string]any); ok {
				switch dialect {
				case 1:
					m["$schema"] = "http://json-schema.org/draft-04/schema#"
				case 2:
					m["$schema"] = "https://json-schema.org/draft/2020-12/schema"
				}
			}
			raw, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			if s, err = CompileSchema(raw); err != nil {
				return // a $ref cycle that consumes no input
			}
		}
		var b strings.Builder
		g.value(&b, doc, 0)
		valid := b.String()
		mutated := edit(valid, mutation)
		size := int(chunk)%64 + 1
		for _, text := range []string{answer, valid, mutated} {
			holdToCheck(t, s, text, size)
		}
		if s.Check(valid) != nil {
			return
		}
		if n, err := feed(s.Stream(), valid, size); err != nil {
			t.Fatalf("schema %s: the passing answer %q was failed early after %d bytes: %v", s.source, valid, n, err)
		}
		if n, err := feed(s.Stream(), mutated, size); err != nil && strings.HasPrefix(valid, mutated[:n]) {
			t.Fatalf("schema %s: %q was failed early after %d bytes (%v), but the passing %q begins with them", s.source, mutated, n, err, valid)
		}
	})
}

// holdToCheck judges text in chunks of size and asserts the properties
// FuzzStream lists.
func holdToCheck(t *testing.T, s *Schema, text string, size int) {
	t.Helper()
	st := s.Stream()
	n, err := feed(st, text, size)
	n1, err1 := feed(s.Stream(), text, 1)
	if n != n1 || !sameVerdict(err, err1) {
		t.Fatalf("schema %s, answer %q: in chunks of %d the verdict is %v after %d bytes, byte by byte %v after %d", s.source, text, size, err, n, err1, n1)
	}
	if err == nil {
		// The tree the Incremental built is the parser's, with its counts.
		if doc, ok := st.sc.Whole(); ok {
			want, values, names, perr := jsonvalue.ParseCounting(text)
			gotValues, gotNames := st.sc.Counts()
			if perr != nil || !reflect.DeepEqual(doc, want) || values != gotValues || names != gotNames {
				t.Fatalf("schema %s, answer %q: the incremental judge built %#v (%d values, %d names), the parser %#v (%d, %d, %v)", s.source, text, doc, gotValues, gotNames, want, values, names, perr)
			}
			// What the Incremental checked as it read is the fast path's
			// verdict on the whole tree, where it knew every subschema.
			if st.sc.PassedEach() && !s.passesFast(want) {
				t.Fatalf("schema %s, answer %q: the incremental judge passed each value as it ended, the fast path fails the whole", s.source, text)
			}
		}
		if got, want := st.Close(), s.Check(text); !sameVerdict(got, want) {
			t.Fatalf("schema %s, answer %q: Close = %v, Check = %v", s.source, text, got, want)
		}
		// Every prefix read without a verdict can be completed.
		for _, cut := range []int{len(text) / 2, len(text) * 3 / 4} {
			holdPrefix(t, s, text[:cut])
		}
		return
	}
	var ce *CheckError
	if !errors.As(err, &ce) || len(ce.Issues) != 1 {
		t.Fatalf("schema %s, answer %q: early verdict %T %v, want a *CheckError with one issue", s.source, text, err, err)
	}
	if got := st.Close(); got != err {
		t.Fatalf("Close after an early verdict = %v, want the verdict %v", got, err)
	}
	read := text[:n]
	completions := []string{text, read, read + `"}]`, read + " 0"}
	if ce.Stage == StageSchemaValidate {
		completions = append(completions, read+complete(read))
	}
	for _, c := range completions {
		if len(c) > s.maxAnswerBytes() {
			continue
		}
		got := s.Check(c)
		if got == nil {
			t.Fatalf("schema %s: %q was failed early after %d bytes (%v), but the completion %q passes", s.source, text, n, err, c)
		}
		if ce.Stage == StageJSONParse {
			if !sameVerdict(got, err) {
				t.Fatalf("schema %s: %q was failed early after %d bytes with %v, but Check(%q) = %v", s.source, text, n, err, c, got)
			}
			continue
		}
		var gce *CheckError
		errors.As(got, &gce)
		if beyondBounds(gce) {
			continue // a number gojsonschema cannot compare: outside the promise
		}
		if gce.Stage == StageJSONParse {
			if c == read+complete(read) {
				t.Fatalf("schema %s: %q, read to %q: the completion %q does not parse: %v", s.source, text, read, c, got)
			}
			continue
		}
		found := false
		for _, is := range gce.Issues {
			found = found || is == ce.Issues[0]
		}
		if !found {
			t.Fatalf("schema %s: %q was failed early after %d bytes with %+v, but Check(%q) reports %+v", s.source, text, n, ce.Issues[0], c, gce.Issues)
		}
	}
}

// beyondBounds reports whether Check's verdict is that a number is too
// large for gojsonschema to compare: it then writes that issue alone, and
// an Incremental's early verdict need not be among it (see [Incremental]).
func beyondBounds(ce *CheckError) bool {
	for _, is := range ce.Issues {
		if is.Message == engine.TooLargeNumber {
			return true
		}
	}
	return false
}

// holdPrefix: a prefix read without a verdict must complete into JSON,
// and Close on it is Check.
func holdPrefix(t *testing.T, s *Schema, prefix string) {
	t.Helper()
	st := s.Stream()
	if _, err := st.WriteString(prefix); err != nil {
		return // the cut fell after a dooming byte
	}
	if got, want := st.Close(), s.Check(prefix); !sameVerdict(got, want) {
		t.Fatalf("schema %s, prefix %q: Close = %v, Check = %v", s.source, prefix, got, want)
	}
	if st.sc.Pending() {
		return // doomed already, the verdict waiting for the end of a character or number
	}
	c := prefix + complete(prefix)
	var ce *CheckError
	if errors.As(s.Check(c), &ce) && ce.Stage == StageJSONParse {
		t.Fatalf("schema %s: %q was read without a verdict, but its completion %q does not parse: %v", s.source, prefix, c, ce)
	}
}

func sameVerdict(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var x, y *CheckError
	return errors.As(a, &x) && errors.As(b, &y) && x.Stage == y.Stage && reflect.DeepEqual(x.Issues, y.Issues)
}

// complete returns text that makes a viable prefix one JSON value. It
// knows JSON, not the Incremental: a second opinion on what can go on.
func complete(prefix string) string {
	type level struct {
		obj  bool
		keys map[string]bool
	}
	var stack []level
	const (
		value = iota // a value must come
		open         // after '[' or '{'
		name         // after ',' in an object
		colon
		after
	)
	state := value
	var b strings.Builder
	i := 0
	for i < len(prefix) {
		c := prefix[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		switch {
		case c == '{' || c == '[':
			stack = append(stack, level{obj: c == '{', keys: map[string]bool{}})
			state = open
			i++
		case c == '}' || c == ']':
			stack = stack[:len(stack)-1]
			state = after
			i++
		case c == ',':
			state = value
			if stack[len(stack)-1].obj {
				state = name
			}
			i++
		case c == ':':
			state = value
			i++
		case c == '"':
			j := i + 1
			for j < len(prefix) && prefix[j] != '"' {
				if prefix[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(prefix) {
				// An open string: finish its escape or character, then it.
				rest := prefix[i+1:]
				var end string
				if (len(rest)-len(strings.TrimRight(rest, `\`)))%2 == 1 {
					end = "n"
				} else if m := regexp.MustCompile(`\\u[0-9a-fA-F]{0,3}$`).FindString(rest); m != "" {
					end = strings.Repeat("0", 6-len(m))
				} else {
					end = finishRune(rest)
				}
				isKey := (state == open || state == name) && len(stack) > 0 && stack[len(stack)-1].obj
				if isKey {
					// A member name the object already has would be a
					// duplicate: make it another.
					var k string
					for json.Unmarshal([]byte(`"`+rest+end+`"`), &k) == nil && stack[len(stack)-1].keys[k] {
						end += `\u0001`
					}
				}
				b.WriteString(end)
				b.WriteString(`"`)
				if isKey {
					b.WriteString(":null")
				}
				state = after
				i = len(prefix)
				continue
			}
			if (state == open || state == name) && len(stack) > 0 && stack[len(stack)-1].obj {
				var k string
				_ = json.Unmarshal([]byte(prefix[i:j+1]), &k)
				stack[len(stack)-1].keys[k] = true
				state = colon
			} else {
				state = after
			}
			i = j + 1
		case c == '-' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(prefix) && strings.IndexByte("0123456789.eE+-", prefix[j]) >= 0 {
				j++
			}
			if j == len(prefix) && strings.IndexByte("-.eE+", prefix[j-1]) >= 0 {
				b.WriteString("0")
			}
			state = after
			i = j
		default: // true, false, null
			word := map[byte]string{'t': "true", 'f': "false", 'n': "null"}[c]
			if word == "" {
				return "" // not a viable prefix
			}
			if got := prefix[i:]; len(got) < len(word) {
				b.WriteString(word[len(got):])
				i = len(prefix)
			} else {
				i += len(word)
			}
			state = after
		}
	}
	switch state {
	case value:
		b.WriteString("null")
	case colon:
		b.WriteString(":null")
	case name:
		k := "\u0001"
		for stack[len(stack)-1].keys[k] {
			k += "\u0001"
		}
		writeJSON(&b, k)
		b.WriteString(":null")
	}
	for j := len(stack) - 1; j >= 0; j-- {
		if stack[j].obj {
			b.WriteString("}")
		} else {
			b.WriteString("]")
		}
	}
	return b.String()
}

// finishRune completes a UTF-8 sequence cut at the end of s.
func finishRune(s string) string {
	j := len(s)
	for j > 0 && len(s)-j < 3 && !utf8.RuneStart(s[j-1]) {
		j--
	}
	if j == 0 || s[j-1] < utf8.RuneSelf || utf8.FullRuneInString(s[j-1:]) {
		return ""
	}
	tail := s[j-1:]
	for _, more := range []string{"\x80", "\x90", "\xa0", "\x80\x80", "\x90\x80", "\xa0\x80", "\x80\x80\x80", "\x90\x80\x80"} {
		if utf8.ValidString(tail + more) {
			return more
		}
	}
	return ""
}

// fuzzGen builds schemas and answers from fuzz bytes.
type fuzzGen struct {
	b      []byte
	i      int
	draft4 bool // exclusive bounds are flags on minimum and maximum
}

func (g *fuzzGen) next() int {
	if g.i >= len(g.b) {
		return 0
	}
	g.i++
	return int(g.b[g.i-1])
}

func (g *fuzzGen) pick(n int) int { return g.next() % n }

var (
	fuzzNames    = []string{"a", "b", "c/d", "é", ""}
	fuzzPatterns = []string{"^[a-c]+$", "^x", "[0-9]", "^.{0,2}$"}
	fuzzFormats  = []string{"date-time", "email", "ipv4", "date", "unknown-format"}
	fuzzStrings  = []string{"a", "bb", "ccc", "x1", "2024-05-01T10:00:00Z", "a@b.co", "10.0.0.1", "2024-05-01", "é", "", "a\"\\\u00e9\n"}
	fuzzNumbers  = []string{"0", "1", "2", "3", "-1", "-2", "0.5", "1.5", "6", "1.0", "1e1", "-0"}
)

func (g *fuzzGen) schema(depth int) any {
	kind := g.pick(10)
	if depth >= 3 && kind >= 2 && kind <= 3 {
		kind = 0
	}
	m := map[string]any{}
	switch kind {
	case 0, 8:
		m["type"] = "string"
		if g.pick(3) == 0 {
			m["type"] = []any{"string", "null"}
		}
		if g.pick(3) == 0 {
			m["minLength"] = g.pick(3)
		}
		if g.pick(3) == 0 {
			m["maxLength"] = g.pick(5)
		}
		if g.pick(3) == 0 {
			m["pattern"] = fuzzPatterns[g.pick(len(fuzzPatterns))]
		}
		if g.pick(3) == 0 {
			m["format"] = fuzzFormats[g.pick(len(fuzzFormats))]
		}
		if g.pick(4) == 0 {
			e := []any{"a", "bb"}
			if x := fuzzStrings[g.pick(len(fuzzStrings))]; x != "a" && x != "bb" {
				e = append(e, x)
			}
			m["enum"] = e
		}
	case 1, 9:
		m["type"] = []string{"integer", "number"}[g.pick(2)]
		for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if g.pick(3) == 0 {
				m[k] = g.pick(7) - 2
				if g.draft4 && strings.HasPrefix(k, "exclusive") {
					m[k] = true
					m[strings.ToLower(k[9:10])+k[10:]] = g.pick(7) - 2
				}
			}
		}
		if g.pick(3) == 0 {
			m["multipleOf"] = []float64{0.5, 2, 3, 0.01}[g.pick(4)]
		}
		if g.pick(4) == 0 {
			m["enum"] = []any{1, 2.5, "a"}
		}
	case 2:
		m["type"] = "object"
		props := map[string]any{}
		var req []any
		for _, n := range fuzzNames {
			if g.pick(2) == 0 {
				props[n] = g.schema(depth + 1)
				if g.pick(2) == 0 {
					req = append(req, n)
				}
			}
		}
		m["properties"] = props
		if len(req) > 0 {
			m["required"] = req
		}
		switch g.pick(4) {
		case 0:
			m["additionalProperties"] = false
		case 1:
			m["additionalProperties"] = g.schema(depth + 1)
		}
		if g.pick(5) == 0 {
			m["maxProperties"] = 2
		}
	case 3:
		m["type"] = "array"
		m["items"] = g.schema(depth + 1)
		if g.pick(2) == 0 {
			m["maxItems"] = g.pick(4)
		}
		if g.pick(3) == 0 {
			m["minItems"] = 1
		}
		if g.pick(4) == 0 {
			m["uniqueItems"] = true
		}
	case 4:
		switch g.pick(4) {
		case 0:
			m["enum"] = []any{"a", 1, true, nil, map[string]any{"a": 1}}
		case 1:
			m["const"] = []any{"a", 2, false, nil}[g.pick(4)]
		case 2:
			return g.pick(2) == 0
		case 3:
			m["type"] = []any{"boolean", "null", "array"}[g.pick(3)]
		}
	case 5, 6:
		// Combinators and keywords decided only once a value closes.
		switch g.pick(11) {
		case 0:
			m["anyOf"] = []any{g.schema(depth + 1), g.schema(depth + 1)}
		case 1:
			m["not"] = g.schema(depth + 1)
		case 2:
			m["$ref"] = "#"
		case 3:
			m["patternProperties"] = map[string]any{"^a": g.schema(depth + 1)}
			m["additionalProperties"] = false
		case 4:
			m["allOf"] = []any{g.schema(depth + 1)}
			m["properties"] = map[string]any{"a": g.schema(depth + 1)}
		case 5:
			m["oneOf"] = []any{g.schema(depth + 1), g.schema(depth + 1)}
		case 6:
			m["if"] = g.schema(depth + 1)
			m["then"] = g.schema(depth + 1)
			if g.pick(2) == 0 {
				m["else"] = g.schema(depth + 1)
			}
		case 7:
			m["type"] = "object"
			m["properties"] = map[string]any{"a": g.schema(depth + 1), "b": g.schema(depth + 1)}
			m["dependencies"] = map[string]any{"a": []any{"b"}, "b": g.schema(depth + 1)}
		case 8:
			m["type"] = "array"
			m["contains"] = g.schema(depth + 1)
		case 9:
			m["type"] = "object"
			m["propertyNames"] = map[string]any{"maxLength": 1}
			m["minProperties"] = 1 + g.pick(2)
		case 10:
			m["allOf"] = []any{g.schema(depth + 1), g.schema(depth + 1)}
		}
	case 7:
		// an empty schema
	}
	return m
}

// value writes an answer that tries to pass schema.
func (g *fuzzGen) value(b *strings.Builder, schema any, depth int) {
	ws := func() {
		b.WriteString([]string{"", "", " ", "\n  "}[g.pick(4)])
	}
	ws()
	defer ws()
	m, _ := schema.(map[string]any)
	if depth > 4 || m == nil {
		b.WriteString([]string{"null", "1", `"a"`, "true"}[g.pick(4)])
		return
	}
	if e, ok := m["enum"].([]any); ok {
		writeJSON(b, e[g.pick(len(e))])
		return
	}
	if c, ok := m["const"]; ok {
		writeJSON(b, c)
		return
	}
	if _, ok := m["$ref"]; ok {
		b.WriteString("{}")
		return
	}
	if a, ok := m["anyOf"].([]any); ok {
		g.value(b, a[0], depth+1)
		return
	}
	t := m["type"]
	if l, ok := t.([]any); ok {
		t = l[g.pick(len(l))]
	}
	if l, ok := t.([]string); ok {
		t = l[0]
	}
	switch t {
	case "string":
		start := g.pick(len(fuzzStrings))
		for k := range fuzzStrings {
			s := fuzzStrings[(start+k)%len(fuzzStrings)]
			if stringFits(m, s) {
				writeJSON(b, s)
				return
			}
		}
		b.WriteString(`"a"`)
	case "integer", "number":
		start := g.pick(len(fuzzNumbers))
		for k := range fuzzNumbers {
			n := fuzzNumbers[(start+k)%len(fuzzNumbers)]
			if numberFits(m, n) {
				b.WriteString(n)
				return
			}
		}
		b.WriteString("0")
	case "object":
		b.WriteString("{")
		props, _ := m["properties"].(map[string]any)
		first := true
		for _, n := range fuzzNames {
			sub, ok := props[n]
			if !ok || g.pick(5) == 0 {
				continue
			}
			if !first {
				b.WriteString(",")
			}
			first = false
			ws()
			writeJSON(b, n)
			b.WriteString(":")
			g.value(b, sub, depth+1)
		}
		if m["additionalProperties"] != false && g.pick(3) == 0 {
			if !first {
				b.WriteString(",")
			}
			b.WriteString(`"zz":`)
			g.value(b, m["additionalProperties"], depth+1)
		}
		b.WriteString("}")
	case "array":
		b.WriteString("[")
		n := g.pick(4)
		for k := range n {
			if k > 0 {
				b.WriteString(",")
			}
			g.value(b, m["items"], depth+1)
		}
		b.WriteString("]")
	case "boolean":
		b.WriteString("false")
	case "null":
		b.WriteString("null")
	default:
		b.WriteString([]string{"null", "12", `"zz"`, "[true]", `{"a":1}`}[g.pick(5)])
	}
}

func writeJSON(b *strings.Builder, v any) {
	raw, _ := json.Marshal(v)
	b.Write(raw)
}

func stringFits(m map[string]any, s string) bool {
	n := utf8.RuneCountInString(s)
	if v, ok := m["minLength"].(int); ok && n < v {
		return false
	}
	if v, ok := m["maxLength"].(int); ok && n > v {
		return false
	}
	if p, ok := m["pattern"].(string); ok && !regexp.MustCompile(p).MatchString(s) {
		return false
	}
	if f, ok := m["format"].(string); ok && !gojsonschema.FormatCheckers.IsFormat(f, s) {
		return false
	}
	return true
}

func numberFits(m map[string]any, s string) bool {
	f, _ := strconv.ParseFloat(s, 64)
	if m["type"] == "integer" && f != float64(int(f)) {
		return false
	}
	num := func(k string) (float64, bool) {
		switch v := m[k].(type) {
		case int:
			return float64(v), true
		case float64:
			return v, true
		}
		return 0, false
	}
	if v, ok := num("minimum"); ok && f < v {
		return false
	}
	if v, ok := num("maximum"); ok && f > v {
		return false
	}
	if v, ok := num("exclusiveMinimum"); ok && f <= v {
		return false
	}
	if v, ok := num("exclusiveMaximum"); ok && f >= v {
		return false
	}
	if v, ok := num("multipleOf"); ok && f/v != float64(int(f/v)) {
		return false
	}
	return true
}

// edit applies up to four edits chosen by ops to s.
var fuzzFragments = []string{"Sure! ", "```json\n", `"zz":1,`, "}", "]", ",", `\`, "\xff", "é", "1e9999", `"`, "[[", "tru", "\x01", `\u12`}

func edit(s string, ops []byte) string {
	for k := 0; k+2 < len(ops) && k < 12; k += 3 {
		if len(s) == 0 {
			return fuzzFragments[int(ops[k+2])%len(fuzzFragments)]
		}
		at := int(ops[k+1]) % (len(s) + 1)
		switch ops[k] % 4 {
		case 0:
			if at < len(s) {
				s = s[:at] + s[at+1:]
			}
		case 1:
			s = s[:at] + fuzzFragments[int(ops[k+2])%len(fuzzFragments)] + s[at:]
		case 2:
			if at < len(s) {
				s = s[:at] + string(rune(ops[k+2]%128)) + s[at+1:]
			}
		case 3:
			s = s[:at]
		}
	}
	return s
}
