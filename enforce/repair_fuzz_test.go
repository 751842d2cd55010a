package enforce

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
	"github.com/enforcer-go/enforcer/enforce/internal/repair"
)

// FuzzRepairs holds the repairs to their laws and the Incremental of a schema
// with repairs to Check with them. From the fuzz bytes it builds a schema
// and an answer that tries to pass it (as FuzzStream does), wraps that
// answer the ways models do (a fence, prose, relaxed syntax, quoted
// scalars, an array's objects one by one among prose) and judges those and the given answer under the repairs the
// mask chooses. It asserts:
//
//   - an answer that passes as written is not mended;
//   - a mend that involves neither syntax nor coerce keeps a substring of
//     what the model wrote; with syntax alone, the same tokens; with
//     coerce alone, the same JSON value but where a string became the
//     number or boolean it spells, or a value an array of it;
//   - a gather makes one array;
//   - what a mend other than the fence alone made parses, and Check
//     judges it: Check(answer) is Check of the mended text, repairs
//     named;
//   - the Incremental's early verdict holds on every completion tried, and
//     without one, Close is Check; a wrapped passing answer is never
//     failed early.
func FuzzRepairs(f *testing.F) {
	for i, a := range seedAnswers(f) {
		f.Add([]byte{}, a, byte(i), byte(15))
	}
	f.Fuzz(func(t *testing.T, schemaSeed []byte, answer string, mask, chunk byte) {
		g := &fuzzGen{b: schemaSeed}
		var s *Schema
		var doc any
		if len(schemaSeed) == 0 {
			s = mustCompileInternal(t, fuzzSchema)
			_ = json.Unmarshal([]byte(fuzzSchema), &doc)
		} else {
			doc = g.schema(0)
			raw, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			if s, err = CompileSchema(raw); err != nil {
				return
			}
		}
		var b strings.Builder
		g.value(&b, doc, 0)
		valid := b.String()
		rs := Repairs(mask) & AllRepairs
		m := s.WithRepairs(rs)
		size := int(chunk)%64 + 1
		wrapped := []string{
			"```json\n" + valid + "\n```", "```\n" + valid, "Here it is:\n" + valid + "\nDone.",
			relaxedSpelling(valid), quotedScalars(valid),
		}
		if split := splitItems(valid); split != "" {
			wrapped = append(wrapped, split)
		}
		for _, text := range append([]string{answer, valid}, wrapped...) {
			holdRepairLaws(t, s, m, text)
			holdMendedStream(t, m, text, size)
		}
		if s.Check(valid) != nil {
			return
		}
		for _, text := range wrapped {
			if m.Check(text) != nil {
				continue
			}
			if n, err := feed(m.Stream(), text, size); err != nil {
				t.Fatalf("schema %s, repairs %s: %q passes, but the incremental judge failed it after %d bytes: %v", s.source, rs, text, n, err)
			}
		}
	})
}

func holdRepairLaws(t *testing.T, strict, s *Schema, answer string) {
	t.Helper()
	mended, applied := s.Repaired(answer)
	if strict.Check(answer) == nil {
		if mended != answer || applied != 0 {
			t.Fatalf("schema %s: %q passes as written, but Repaired gives %q (%s)", s.source, answer, mended, applied)
		}
		return
	}
	if applied&^s.repairs != 0 {
		t.Fatalf("schema %s: %q was mended by %s, not all chosen (%s)", s.source, answer, applied, s.repairs)
	}
	if applied == 0 {
		if mended != answer || !sameVerdict(s.Check(answer), strict.Check(answer)) {
			t.Fatalf("schema %s: %q was not mended, but Check differs from the strict one", s.source, answer)
		}
		return
	}
	got := s.Check(answer)
	var ce *CheckError
	if errors.As(got, &ce) && ce.Repaired != applied {
		t.Fatalf("schema %s: %q: Check's error names %s, Repaired %s", s.source, answer, ce.Repaired, applied)
	}
	if want := strict.Check(mended); !sameVerdict(got, want) {
		t.Fatalf("schema %s: %q mended to %q: Check = %v, the strict Check of the mended text = %v", s.source, answer, mended, got, want)
	}
	if applied&RepairGather != 0 && (!validJSON(mended) || !strings.HasPrefix(mended, "[")) {
		t.Fatalf("schema %s: %q gathered into %q, which is not one array", s.source, answer, mended)
	}
	switch {
	case applied&(RepairSyntax|RepairQuote|RepairGather|RepairCoerce) == 0:
		if !strings.Contains(answer, strings.TrimSpace(mended)) {
			t.Fatalf("schema %s: %q mended by %s to %q, which is not a part of it", s.source, answer, applied, mended)
		}
	case applied == RepairSyntax:
		if a, b := relaxedTokens(answer), relaxedTokens(mended); !reflect.DeepEqual(a, b) {
			t.Fatalf("schema %s: the syntax repair changed the tokens of %q (%q) into %q (%q)", s.source, answer, a, mended, b)
		}
	case applied == RepairCoerce:
		var was, is any
		if decodeNumbers(answer, &was) != nil || decodeNumbers(mended, &is) != nil || !coercedFrom(was, is) {
			t.Fatalf("schema %s: the coerce repair turned %q into %q", s.source, answer, mended)
		}
	}
	if applied&RepairQuote != 0 {
		var v any
		_ = json.Unmarshal([]byte(mended), &v)
		if w, ok := quotedLiteral(v, answer); ok {
			t.Fatalf("schema %s: the quote repair read %q in %q as a string", s.source, w, answer)
		}
	}
	if applied != RepairFence && !validJSON(mended) { // a fence is removed whatever it holds
		t.Fatalf("schema %s: %q was mended by %s into %q, which is not JSON", s.source, answer, applied, mended)
	}
}

// holdMendedStream: an early verdict of an Incremental with repairs is Check's
// on every completion tried; without one, Close is Check.
func holdMendedStream(t *testing.T, s *Schema, text string, size int) {
	t.Helper()
	st := s.Stream()
	n, err := feed(st, text, size)
	if _, err1 := feed(s.Stream(), text, 1); !sameVerdict(err, err1) {
		t.Fatalf("schema %s, repairs %s, answer %q: in chunks of %d the verdict is %v, byte by byte %v", s.source, s.repairs, text, size, err, err1)
	}
	if err == nil {
		if got, want := st.Close(), s.Check(text); !sameVerdict(got, want) {
			t.Fatalf("schema %s, repairs %s, answer %q: Close = %v, Check = %v", s.source, s.repairs, text, got, want)
		}
		return
	}
	var ce *CheckError
	if !errors.As(err, &ce) || len(ce.Issues) != 1 {
		t.Fatalf("schema %s: early verdict %T %v, want a *CheckError with one issue", s.source, err, err)
	}
	if n > len(text) || n < 0 {
		t.Fatalf("schema %s: %d bytes read of %d", s.source, n, len(text))
	}
	read := text[:n]
	completions := []string{text, read + "\n```", read + `"}]`}
	if c, ok := tryComplete(read); ok {
		completions = append(completions, c)
	}
	for _, c := range completions {
		if len(c) > s.maxAnswerBytes() {
			continue
		}
		got := s.Check(c)
		var gce *CheckError
		if !errors.As(got, &gce) {
			t.Fatalf("schema %s, repairs %s: %q was failed early (%v), but the completion %q passes", s.source, s.repairs, text, err, c)
		}
		if ce.Stage == StageJSONParse {
			if !sameVerdict(got, err) {
				t.Fatalf("schema %s, repairs %s: %q was failed early with %v, but Check(%q) = %v", s.source, s.repairs, text, err, c, got)
			}
			continue
		}
		if gce.Stage == StageJSONParse || beyondBounds(gce) {
			continue
		}
		found := false
		for _, is := range gce.Issues {
			found = found || is == ce.Issues[0]
		}
		if !found {
			t.Fatalf("schema %s, repairs %s: %q was failed early with %+v, but Check(%q) reports %+v", s.source, s.repairs, text, ce.Issues[0], c, gce.Issues)
		}
	}
}

// relaxedSpelling writes a JSON text the way the syntax repair mends:
// member names unquoted where they can be, single quotes, a trailing
// comma in each container, a comment.
// splitItems writes an array of objects as its items, each after a line
// of prose, as models write several tool calls; "" for anything else.
func splitItems(text string) string {
	var items []json.RawMessage
	if json.Unmarshal([]byte(text), &items) != nil || len(items) < 2 {
		return ""
	}
	var b strings.Builder
	for i, item := range items {
		if item[0] != '{' {
			return ""
		}
		fmt.Fprintf(&b, "Call %d:\n%s\n", i+1, item)
	}
	return b.String()
}

func relaxedSpelling(text string) string {
	var b strings.Builder
	b.WriteString("/* answer */ ")
	p := jsonvalue.Parser{S: text}
	for p.I < len(text) {
		c := text[p.I]
		switch {
		case c == '"':
			start := p.I
			str := p.Str()
			if p.Err != nil {
				return text
			}
			raw := text[start:p.I]
			j := p.I
			for j < len(text) && jsonvalue.IsSpace(text[j]) {
				j++
			}
			ident := str != ""
			for k := 0; k < len(str); k++ {
				ident = ident && repair.IdentByte(str[k]) && !(k == 0 && (str[k] == '-' || (str[k] >= '0' && str[k] <= '9')))
			}
			switch {
			case j < len(text) && text[j] == ':' && ident:
				b.WriteString(str)
			case !strings.ContainsAny(raw, `'\`):
				b.WriteString("'" + raw[1:len(raw)-1] + "'")
			default:
				b.WriteString(raw)
			}
		case c == '}' || c == ']':
			if s := strings.TrimRight(b.String(), " \t\r\n"); !strings.HasSuffix(s, "{") && !strings.HasSuffix(s, "[") {
				b.WriteByte(',')
			}
			b.WriteByte(c)
			p.I++
		default:
			b.WriteByte(c)
			p.I++
		}
	}
	return b.String()
}

// quotedScalars writes every number and boolean of a JSON text as a
// string, as models do.
func quotedScalars(text string) string {
	var b strings.Builder
	p := jsonvalue.Parser{S: text}
	for p.I < len(text) {
		c := text[p.I]
		switch {
		case c == '"':
			start := p.I
			p.Str()
			if p.Err != nil {
				return text
			}
			b.WriteString(text[start:p.I])
		case c == '-' || (c >= '0' && c <= '9'):
			start := p.I
			p.Number()
			if p.Err != nil {
				return text
			}
			b.WriteString(`"` + text[start:p.I] + `"`)
		case strings.HasPrefix(text[p.I:], "true"), strings.HasPrefix(text[p.I:], "false"):
			w := "true"
			if c == 'f' {
				w = "false"
			}
			b.WriteString(`"` + w + `"`)
			p.I += len(w)
		default:
			b.WriteByte(c)
			p.I++
		}
	}
	return b.String()
}

// relaxedTokens reads text as the syntax repair's grammar allows,
// independently of it: strings in either quote (decoded), bare names,
// numbers, literals (Python's as JSON's), and punctuation, without
// whitespace, comments or a comma before a closing bracket. Nil when it
// cannot tokenise.
func relaxedTokens(text string) []string {
	var toks []string
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case jsonvalue.IsSpace(c):
			i++
		case strings.HasPrefix(text[i:], "//"):
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				return toks
			}
			i += j
		case strings.HasPrefix(text[i:], "/*"):
			j := strings.Index(text[i+2:], "*/")
			if j < 0 {
				return nil
			}
			i += j + 4
		case c == '"' || c == '\'':
			var v []byte
			j := i + 1
			for ; j < len(text) && text[j] != c; j++ {
				if text[j] == '\\' && j+1 < len(text) {
					j++
					if text[j] != '\'' {
						v = append(v, '\\')
					}
				} else if text[j] == '"' {
					v = append(v, '\\')
				}
				v = append(v, text[j])
			}
			if j == len(text) {
				return nil
			}
			toks = append(toks, `"`+string(v)+`"`)
			i = j + 1
		case strings.ContainsRune("{}[]:,", rune(c)):
			if c == '}' || c == ']' {
				if n := len(toks); n > 0 && toks[n-1] == "," {
					toks = toks[:n-1]
				}
			}
			toks = append(toks, string(c))
			i++
		default:
			j := i
			for j < len(text) && (repair.IdentByte(text[j]) || text[j] == '.' || text[j] == '+') {
				j++
			}
			if j == i {
				return nil
			}
			w := text[i:j]
			switch w {
			case "True":
				w = "true"
			case "False":
				w = "false"
			case "None":
				w = "null"
			}
			if strings.HasPrefix(strings.TrimLeft(text[j:], " \t\r\n"), ":") {
				w = `"` + w + `"` // a bare member name
			}
			toks = append(toks, w)
			i = j
		}
	}
	// A name after a value (no comma between them) is read as the syntax
	// repair reads it: the comma forgotten.
	for k := 1; k+1 < len(toks); k++ {
		if toks[k+1] == ":" && toks[k-1] != "{" && toks[k-1] != "," {
			toks = slices.Insert(toks, k, ",")
			k++
		}
	}
	return toks
}

// decodeNumbers decodes text into v with numbers as written, so that one
// past float64 (1E1000) is still a number.
func decodeNumbers(text string, v *any) error {
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	return d.Decode(v)
}

// coercedFrom reports whether is is was with some strings read as the
// number or boolean they spell, and some values wrapped in an array.
func coercedFrom(was, is any) bool {
	if reflect.DeepEqual(was, is) {
		return true
	}
	switch is := is.(type) {
	case json.Number, bool:
		s, ok := was.(string)
		if !ok {
			return false
		}
		var v any
		return decodeNumbers(s, &v) == nil && reflect.DeepEqual(v, is)
	case []any:
		if w, ok := was.([]any); ok {
			if len(w) != len(is) {
				return false
			}
			for i := range w {
				if !coercedFrom(w[i], is[i]) {
					return false
				}
			}
			return true
		}
		if s, ok := was.(string); ok {
			// A string holding a JSON array is that array; any other
			// string is wrapped only when it reads one way: not empty,
			// no separator, no bracket (issue 42).
			var v any
			if strings.HasPrefix(strings.TrimSpace(s), "[") {
				return decodeNumbers(s, &v) == nil && reflect.DeepEqual(v, []any(is))
			}
			if s == "" || strings.ContainsAny(s, ",;|\t\n\r") {
				return false
			}
		}
		return was != nil && len(is) == 1 && coercedFrom(was, is[0])
	case map[string]any:
		w, ok := was.(map[string]any)
		if !ok || len(w) != len(is) {
			return false
		}
		for k, v := range is {
			if wv, ok := w[k]; !ok || !coercedFrom(wv, v) {
				return false
			}
		}
		return true
	}
	return false
}

// tryComplete is read+complete(read), where complete can read it (it
// expects what a strict Incremental accepted).
func tryComplete(read string) (c string, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return read + complete(read), true
}

// validJSON reports whether text is exactly one JSON value.
func validJSON(text string) bool {
	_, err := jsonvalue.Parse(text)
	return err == nil
}

// quotedLiteral finds in v a string that spells a literal of some
// language (NULL, nil, True…) that answer does not write quoted: the
// quote repair must leave such a word (issue 42).
func quotedLiteral(v any, answer string) (string, bool) {
	switch v := v.(type) {
	case string:
		for _, lit := range []string{"null", "nil", "none", "true", "false", "nan", "inf", "infinity", "undefined"} {
			if strings.EqualFold(v, lit) && !strings.Contains(answer, `"`+v+`"`) && !strings.Contains(answer, "'"+v+"'") {
				return v, true
			}
		}
	case []any:
		for _, x := range v {
			if w, ok := quotedLiteral(x, answer); ok {
				return w, true
			}
		}
	case map[string]any:
		for _, x := range v {
			if w, ok := quotedLiteral(x, answer); ok {
				return w, true
			}
		}
	}
	return "", false
}
