package native_test

import (
	"fmt"

	"github.com/enforcer-go/enforcer/providers/native"
)

func ExampleLower() {
	contract := []byte(`{"type":"object","properties":{
		"city":{"type":"string","minLength":1},
		"nick":{"type":"string"}},"required":["city"]}`)

	l, err := native.Lower(contract, native.OpenAI)
	if err != nil {
		panic(err)
	}
	fmt.Println(l.Report.Mode, string(l.Schema))
	for _, k := range l.Report.Keywords {
		fmt.Println(k.Pointer, k.Name, k.Enforced)
	}

	// The model must write every member; its null for nick reads as nick
	// left out.
	text, removed := l.Text(`{"city":"Paris","nick":null}`)
	fmt.Println(text, removed)
	// Output:
	// strict {"type":"object","properties":{"city":{"type":"string"},"nick":{"type":["string","null"]}},"required":["city","nick"],"additionalProperties":false}
	//  type true
	//  required true
	// /properties/city type true
	// /properties/city minLength false
	// /properties/nick type true
	// {"city":"Paris"} [/nick]
}

// As the answer streams, the read-back holds back only the bytes of a
// member it may remove until it knows, and passes the rest on.
func ExampleLowering_ReadBack() {
	contract := []byte(`{"type":"object","properties":{
		"city":{"type":"string"},
		"nick":{"type":"string"}},"required":["city"]}`)
	l, err := native.Lower(contract, native.OpenAI)
	if err != nil {
		panic(err)
	}
	rb := l.ReadBack()
	for _, piece := range []string{`{"city":"Par`, `is","ni`, `ck":nu`, `ll}`} {
		fmt.Printf("%q\n", rb.Write(piece))
	}
	fmt.Printf("%q %v\n", rb.Close(), rb.Removed())
	// Output:
	// "{\"city\":\"Par"
	// "is\""
	// ""
	// "}"
	// "" [/nick]
}
