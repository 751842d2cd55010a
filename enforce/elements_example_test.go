package enforce_test

import (
	"fmt"

	"github.com/enforcer-go/enforcer/enforce"
)

// Your own loop writes the streamed answer to an Elements instead of its
// Incremental; each element is delivered within the write that holds
// its closing byte.
func ExampleNewElements() {
	s, err := enforce.CompileSchema([]byte(`{
		"type": "object",
		"properties": {
			"hits": {"type": "array", "items": {"type": "object", "required": ["id"]}},
			"total": {"type": "integer"}
		}
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	el, err := enforce.NewElements(s.Stream(), "/hits", func(e enforce.Element) {
		fmt.Println("element", e.Pointer(), e.Text)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, chunk := range []string{`{"hits":[{"id":1},{"i`, `d":2}],"total":"two"}`} {
		fmt.Printf("write %q\n", chunk)
		if _, err := el.WriteString(chunk); err != nil {
			fmt.Println("verdict:", err)
			break
		}
	}
	// Output:
	// write "{\"hits\":[{\"id\":1},{\"i"
	// element /hits/0 {"id":1}
	// write "d\":2}],\"total\":\"two\"}"
	// element /hits/1 {"id":2}
	// verdict: schema-validate: /total: Invalid type. Expected: integer, given: string
}
