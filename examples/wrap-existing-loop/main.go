// wrap-existing-loop: enforcement around a plain Go tool loop that does
// not use the agent package. enforce.Loop calls your loop for a final
// answer, judges it, and on failure calls it again with the corrective
// message to append as a user turn — keeping the ledger.
//
//	go run ./examples/wrap-existing-loop
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/enforcer-go/enforcer/enforce"
)

// Forecast is the output contract.
type Forecast struct {
	City  string `json:"city"`
	HighC int    `json:"highC"`
}

// message and myLoop stand in for your existing code: your own message
// type, your own model client and tool dispatch.
type message struct{ role, text string }

func myLoop(ctx context.Context, history []message) (string, error) {
	// A real loop would call a model and run tools until the model gives
	// a final answer. This one answers from a script, and only gives the
	// contract-keeping answer once it has been corrected.
	corrections := 0
	for _, m := range history {
		if m.role == "user" && strings.HasPrefix(m.text, "Your previous answer") {
			corrections++
		}
	}
	switch corrections {
	case 0:
		return "```json\n{\"city\": \"Oslo\", \"highC\": 4}\n```", nil // fenced: json-parse fails
	default:
		return `{"city": "Oslo", "highC": 4}`, nil
	}
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	schema, err := enforce.SchemaFor[Forecast]()
	if err != nil {
		return err
	}
	history := []message{{"user", "Forecast for Oslo tomorrow?"}}
	answer, rows, err := enforce.Loop(ctx, schema, 2, func(ctx context.Context, corrective string) (string, error) {
		if corrective != "" {
			history = append(history, message{"user", corrective})
		}
		a, err := myLoop(ctx, history)
		history = append(history, message{"assistant", a})
		return a, err
	})
	if err != nil {
		return err
	}
	var f Forecast
	if err := json.Unmarshal([]byte(answer), &f); err != nil {
		return err
	}
	fmt.Fprintf(out, "accepted: %+v\n", f)
	for _, r := range rows {
		b, _ := json.Marshal(r)
		fmt.Fprintf(out, "row: %s\n", b)
	}
	return nil
}
