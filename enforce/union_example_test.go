package enforce_test

import (
	"fmt"

	"github.com/enforcer-go/enforcer/enforce"
)

// A union's answer names the member it chose; an issue inside it is at a
// pointer that starts with the member's name.
func ExampleUnion() {
	type Refund struct {
		Order  string  `json:"order"`
		Amount float64 `json:"amount"`
	}
	type Escalation struct {
		Team string `json:"team"`
	}
	refund, _ := enforce.SchemaFor[Refund]()
	escalation, _ := enforce.SchemaFor[Escalation]()
	u, err := enforce.Union(
		enforce.UnionMember{Name: "refund", Description: "money back for an order", Schema: refund},
		enforce.UnionMember{Name: "escalation", Description: "a person must look at it", Schema: escalation})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, answer := range []string{
		`{"escalation":{"team":"billing"}}`,
		`{"refund":{"order":"A1","amount":"12.50"}}`,
		`{}`,
	} {
		fmt.Printf("%s member=%q: %v\n", answer, u.Member(answer), u.Check(answer))
	}
	// Output:
	// {"escalation":{"team":"billing"}} member="escalation": <nil>
	// {"refund":{"order":"A1","amount":"12.50"}} member="refund": schema-validate: /refund/amount: Invalid type. Expected: number, given: string
	// {} member="": schema-validate: the answer names no member of the union: give exactly one member, named for your choice: "refund", "escalation" (and 3 more)
}
