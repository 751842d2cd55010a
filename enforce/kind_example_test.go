package enforce_test

import (
	"context"
	"fmt"

	"github.com/enforcer-go/enforcer/enforce"
)

// A choice reads the bare label, a JSON string, or the object form that
// tool and native modes send; with RepairLabel a near-miss is read as
// its label, and the row says so.
func ExampleChoice() {
	s, err := enforce.Choice(
		enforce.Label{Name: "positive", Description: "the reviewer liked it"},
		enforce.Label{Name: "negative", Description: "the reviewer did not"},
	)
	if err != nil {
		panic(err)
	}
	for _, answer := range []string{"positive", `{"label": "negative"}`, "Positive.", "pos"} {
		fmt.Printf("%-22q %v\n", answer, s.Check(answer))
	}
	l, _ := enforce.NewLedger(s.WithRepairs(enforce.RepairLabel), 1)
	v := l.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: "Positive."})
	fmt.Println(v.Row.Outcome, v.Row.Repaired, v.Row.Kind, v.Answer)
	// Output:
	// "positive"             <nil>
	// "{\"label\": \"negative\"}" <nil>
	// "Positive."            schema-validate: (root) must be one of the following: "positive", "negative"
	// "pos"                  schema-validate: (root) must be one of the following: "positive", "negative"
	// passed label choice positive
}

// A text is held to its rules as written; streamed, a forbidden
// substring cuts it at the byte that completes it.
func ExampleText() {
	s, err := enforce.Text(enforce.MaxLength(40), enforce.MustContain("Paris"), enforce.MustNotContain("as an AI"))
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Check("Sunny in Paris."))
	fmt.Println(s.Check("Well, as an AI, I cannot say."))
	st := s.Stream()
	for _, piece := range []string{"Well, as ", "an AI, I ", "cannot say."} {
		if n, err := st.WriteString(piece); err != nil {
			fmt.Printf("cut after %d bytes of %q: %v\n", n, piece, err)
			break
		}
	}
	// Output:
	// <nil>
	// schema-validate: the text does not contain "Paris", which it must (and 1 more)
	// cut after 5 bytes of "an AI, I ": schema-validate: the text contains "as an AI", which it must not
}
