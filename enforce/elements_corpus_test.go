package enforce_test

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/internal/corpus"
)

// TestElementsOnRealSchemas holds an Elements to Check on the real-world
// corpus: for every schema whose root, or a member of the root, is an
// array of objects, each labelled document is fed in chunks of random
// sizes (1 to 64 bytes, seeded) to an Elements reading that array.
// Every element delivered is the document's own there, and Check reports
// no issue at or under it; without an early verdict, Close is Check; when
// the document passes, every element is delivered. Under the race
// detector it reads every 8th schema.
func TestElementsOnRealSchemas(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the whole real-world corpus")
	}
	files := corpus.Bench(t, nil)
	rng := rand.New(rand.NewPCG(35, 1))
	schemas, docs, delivered, early := 0, 0, 0, 0
	for i, bf := range files {
		if underRace && i%8 != 0 {
			continue
		}
		pointers := arraysOfObjects(bf.Schema)
		if len(pointers) == 0 {
			continue
		}
		s, err := enforce.CompileSchema(bf.Schema)
		if err != nil {
			continue
		}
		schemas++
		for _, tc := range bf.Tests {
			doc := string(tc.Data)
			check := s.Check(doc)
			for _, ptr := range pointers {
				docs++
				var got []enforce.Element
				closed := false
				el, err := enforce.NewElements(s.Stream(), ptr, func(e enforce.Element) {
					got = append(got, e)
					if !closed {
						early++
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				var werr error
				for i := 0; i < len(doc) && werr == nil; {
					n := 1 + rng.IntN(64)
					_, werr = el.WriteString(doc[i:min(i+n, len(doc))])
					i += n
				}
				closed = true
				cerr := el.Close()
				delivered += len(got)
				if werr == nil && !sameCheck(cerr, check) {
					t.Fatalf("%s at %q: Close = %v, Check = %v", bf.Name, ptr, cerr, check)
				}
				holdDelivered(t, bf.Name, ptr, doc, check, got)
			}
		}
	}
	if schemas == 0 {
		t.Fatal("no schema of the corpus has an array of objects at its root or a member")
	}
	t.Logf("%d schemas with an array of objects, %d (document, array) pairs: %d elements delivered, %d of them as they closed", schemas, docs, delivered, early)
}

// holdDelivered asserts that each element delivered from doc is doc's
// own, in order, and that Check's verdict check reports no issue at or
// under it; and, when doc passes, that every element was delivered.
func holdDelivered(t *testing.T, name, ptr, doc string, check error, got []enforce.Element) {
	t.Helper()
	var ce *enforce.CheckError
	if errors.As(check, &ce) && ce.Stage == enforce.StageSchemaValidate {
		for _, e := range got {
			for _, is := range ce.Issues {
				if is.Path == e.Pointer() || strings.HasPrefix(is.Path, e.Pointer()+"/") {
					t.Fatalf("%s: delivered %s %s, where Check reports %+v", name, e.Pointer(), clip(e.Text, 200), is)
				}
			}
		}
	}
	var tree any
	d := json.NewDecoder(strings.NewReader(doc))
	d.UseNumber()
	if d.Decode(&tree) != nil {
		return
	}
	items := lookup(t, tree, ptr)
	if check == nil && len(got) != len(items) {
		t.Fatalf("%s at %q: delivered %d of the passing document's %d elements", name, ptr, len(got), len(items))
	}
	for i, e := range got {
		var v any
		d := json.NewDecoder(strings.NewReader(e.Text))
		d.UseNumber()
		if e.Index != i || i >= len(items) || d.Decode(&v) != nil || !reflect.DeepEqual(v, items[i]) {
			t.Fatalf("%s at %q: element %d is #%d %s, not the document's", name, ptr, i, e.Index, clip(e.Text, 200))
		}
	}
}

// arraysOfObjects returns the pointers, in an answer to schema, of the
// arrays of objects at its root or as a member of its root.
func arraysOfObjects(schema json.RawMessage) []string {
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil {
		return nil
	}
	var out []string
	if isArrayOfObjects(root) {
		out = append(out, "")
	}
	props, _ := root["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if m, ok := props[k].(map[string]any); ok && isArrayOfObjects(m) {
			out = append(out, "/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"))
		}
	}
	return out
}

func isArrayOfObjects(s map[string]any) bool {
	if t, _ := s["type"].(string); t != "array" {
		return false
	}
	items, ok := s["items"].(map[string]any)
	if !ok {
		return false
	}
	_, ref := items["$ref"]
	_, props := items["properties"]
	t, _ := items["type"].(string)
	return t == "object" || ref || props
}
