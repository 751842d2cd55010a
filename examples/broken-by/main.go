// broken-by: the model's answer keeps the contract, but an act-output
// middleware rewrites it into one that does not. Re-asking the model
// cannot fix a rewrite, so the run stops after ONE model call with an
// exhausted row whose brokenBy names the middleware — its retries unspent.
//
//	go run ./examples/broken-by
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/middleware"
)

// Invoice is the output contract.
type Invoice struct {
	Customer string `json:"customer"`
	Total    int    `json:"total"`
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	calls := 0
	model := agent.ModelFunc(func(ctx context.Context, req agent.Request) (agent.Response, error) {
		calls++
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant,
			Content: `{"customer": "ACME Corp", "total": 1200}`}}, nil
	})
	// A well-meant redaction step that wraps the JSON in prose.
	redact := middleware.Middleware{
		Name: "redact-customer",
		Output: func(ctx context.Context, text string) (string, error) {
			middleware.Explain(ctx, "replaced the customer name")
			return "Redacted: " + strings.ReplaceAll(text, "ACME Corp", "[customer]"), nil
		},
	}
	a := agent.New(model, agent.WithMiddleware(redact), agent.WithOutputRetries(3))
	_, res, err := agent.RunTyped[Invoice](ctx, a, "Summarize invoice 42")

	var oe *enforce.OutputError
	if !errors.As(err, &oe) {
		return fmt.Errorf("want an output error, got %v", err)
	}
	fmt.Fprintf(out, "model calls: %d (retries left unspent)\n", calls)
	fmt.Fprintf(out, "broken by:   %s\n", oe.BrokenBy)
	fmt.Fprintf(out, "sentinel:    errors.Is(err, enforce.ErrBrokenBy) = %v\n", errors.Is(err, enforce.ErrBrokenBy))
	rows, _ := json.MarshalIndent(res.Attempts, "", "  ")
	fmt.Fprintf(out, "ledger:\n%s\n", rows)
	for _, s := range res.Trace {
		fmt.Fprintf(out, "trace: %s (%s) changed=%v why=%q\n", s.Name, s.Phase, s.Changed, s.Why)
	}
	return nil
}
