package enforce_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

const itemsSchema = `{
	"type": "object",
	"properties": {
		"summary": {"type": "string"},
		"items": {"type": "array", "items": {
			"type": "object",
			"properties": {"name": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
			"required": ["name", "qty"],
			"additionalProperties": false
		}}
	},
	"required": ["summary", "items"]
}`

// collect returns an Elements over s's Incremental at pointer, and the
// texts it delivered, with the bytes written when each was delivered.
type delivery struct {
	text    string
	written int
}

func TestElementsAreDeliveredAtTheirClosingByte(t *testing.T) {
	s, err := enforce.CompileSchema([]byte(itemsSchema))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	el, err := enforce.NewElements(s.Stream(), "/items", func(e enforce.Element) { got = append(got, e.Pointer()+" "+e.Text) })
	if err != nil {
		t.Fatal(err)
	}
	// One chunk holds both elements' closing bytes and then a member the
	// schema refuses: both are delivered, then the verdict is given.
	n, err := el.WriteString(`{"items":[{"name":"a","qty":1},{"name":"b","qty":2}],"summary":"x","extra":1`)
	var ce *enforce.CheckError
	if !errors.As(err, &ce) {
		t.Logf("n=%d err=%v", n, err)
	}
	want := []string{`/items/0 {"name":"a","qty":1}`, `/items/1 {"name":"b","qty":2}`}
	if !slices.Equal(got, want) {
		t.Errorf("delivered %q, want %q", got, want)
	}
}
