package enforce

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// FuzzPartial holds Incremental.Partial to its promises on the schemas and
// answers FuzzStream builds (or FuzzFast's, from every keyword), read in chunks with Partial called after
// each: doc is nil only while no value has begun and is otherwise one
// JSON value our parser accepts; settled only grows; every settled
// pointer names a value of doc equal to the one in the whole answer, and
// the whole answer's verdict (when it parses) has no issue at or below
// it.
func FuzzPartial(f *testing.F) {
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
			doc = g.schema(0)
			if schemaSeed[0]%2 == 1 { // from every keyword the evaluator compiles
				fg := &fastGen{fuzzGen: fuzzGen{b: schemaSeed[1:]}, dialect: 2}
				doc = fg.schema(0)
				if m, ok := doc.(map[string]any); ok {
					m["definitions"] = map[string]any{"d": fg.schema(2)}
				}
			}
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
		size := int(chunk)%64 + 1
		for _, text := range []string{answer, valid, edit(valid, mutation)} {
			holdPartial(t, s, text, size)
		}
	})
}

// holdPartial feeds text in chunks of size, calling Partial after each,
// and asserts what FuzzPartial lists.
func holdPartial(t *testing.T, s *Schema, text string, size int) {
	t.Helper()
	st := s.Stream()
	var settled []string
	var last []byte
	for i := 0; i < len(text); i += size {
		_, err := st.WriteString(text[i:min(i+size, len(text))])
		doc, now := st.Partial()
		if err == nil {
			holdDoc(t, s, text[:min(i+size, len(text))], doc)
		} else if doc != nil && !json.Valid(doc) {
			t.Fatalf("schema %s: Partial after the verdict on %q = %q, not JSON", s.source, text, doc)
		}
		if len(now) < len(settled) || !equalStrings(now[:len(settled)], settled) {
			t.Fatalf("schema %s, answer %q: settled went from %q to %q", s.source, text, settled, now)
		}
		settled, last = now, doc
		if err != nil {
			break
		}
	}
	// Called once at the end, Partial settles the same values.
	late := s.Stream()
	_, _ = feed(late, text, size)
	if _, got := late.Partial(); !sameSet(got, settled) {
		t.Fatalf("schema %s, answer %q: Partial after every chunk settled %q, once at the end %q", s.source, text, settled, got)
	}
	if st.Close() == nil {
		doc, now := st.Partial()
		want, _ := jsonvalue.Parse(text)
		got, err := jsonvalue.Parse(string(doc))
		if err != nil || !jsonEqual(jsonvalue.CanonicalNumbers(got), jsonvalue.CanonicalNumbers(want)) {
			t.Fatalf("schema %s: Partial after the passing %q was closed = %q (%v)", s.source, text, doc, err)
		}
		settled, last = now, doc
	}
	if len(settled) == 0 {
		return
	}
	lastDoc, err := jsonvalue.Parse(string(last))
	if err != nil {
		t.Fatalf("doc %q: %v", last, err)
	}
	whole, err := jsonvalue.Parse(text)
	wholeErr := s.Check(text)
	var ce *CheckError
	if errors.As(wholeErr, &ce) && ce.Stage == StageJSONParse {
		c, ok := completed(text[:st.sc.Read()])
		if !ok {
			return // read past a dooming byte: what was read cannot be completed
		}
		whole, err = jsonvalue.Parse(c)
		wholeErr = s.Check(c)
		ce = nil
		errors.As(wholeErr, &ce)
	}
	if err != nil || (ce != nil && ce.Stage == StageJSONParse) {
		return
	}
	if strings.Contains(text, `\u0000`) {
		ce = nil // gojsonschema's paths split member names at NUL
	}
	for _, p := range settled {
		got, ok1 := jsonvalue.LookupPointer(jsonvalue.CanonicalNumbers(lastDoc), p)
		want, ok2 := jsonvalue.LookupPointer(jsonvalue.CanonicalNumbers(whole), p)
		if !ok1 || !ok2 || !jsonEqual(got, want) {
			t.Fatalf("schema %s, answer %q: settled %q is %v (%t) in doc %q, %v (%t) in the answer", s.source, text, p, got, ok1, last, want, ok2)
		}
		if ce == nil {
			continue
		}
		for _, is := range ce.Issues {
			if is.Path == p || strings.HasPrefix(is.Path, p+"/") {
				t.Fatalf("schema %s, answer %q: %q settled, but the answer has the issue %+v", s.source, text, p, is)
			}
		}
	}
}

// holdDoc: doc is nil only while read holds no value's first byte, and
// otherwise one JSON value.
func holdDoc(t *testing.T, s *Schema, read string, doc []byte) {
	t.Helper()
	if doc == nil {
		if st := strings.TrimLeft(read, " \t\r\n"); st != "" && strings.ContainsAny(st[:1], "{[\"") {
			t.Fatalf("schema %s: Partial after %q is nil", s.source, read)
		}
		return
	}
	if _, err := jsonvalue.Parse(string(doc)); err != nil || !json.Valid(doc) {
		t.Fatalf("schema %s: Partial after %q = %q, not JSON: %v", s.source, read, doc, err)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// completed is prefix made one JSON value by complete, when it can be.
func completed(prefix string) (c string, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	c = prefix + complete(prefix)
	_, err := jsonvalue.Parse(c)
	return c, err == nil
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, x := range a {
		seen[x]++
	}
	for _, x := range b {
		if seen[x]--; seen[x] < 0 {
			return false
		}
	}
	return true
}
