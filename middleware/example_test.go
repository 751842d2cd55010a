package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/enforcer-go/enforcer/middleware"
)

// Steps run in the order given; a step without a Func for the phase is
// skipped and left out of the trace.
func ExampleRun() {
	ms := []middleware.Middleware{
		{Name: "trim", Output: func(ctx context.Context, s string) (string, error) {
			middleware.Explain(ctx, "trimmed spaces")
			return strings.TrimSpace(s), nil
		}},
		{Name: "input-only", Input: func(ctx context.Context, s string) (string, error) {
			return "never called in the output phase", nil
		}},
		{Name: "audit", Output: func(ctx context.Context, s string) (string, error) {
			return s, nil
		}},
		{Name: "shout", Output: func(ctx context.Context, s string) (string, error) {
			return strings.ToUpper(s), nil
		}},
	}
	out, trace, err := middleware.Run(context.Background(), middleware.PhaseOutput, ms, "  hello  ")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range trace {
		fmt.Printf("%s changed=%t why=%q text=%q\n", s.Name, s.Changed, s.Why, s.Text)
	}
	fmt.Printf("%q\n", out)
	// Output:
	// trim changed=true why="trimmed spaces" text="hello"
	// audit changed=false why="" text="hello"
	// shout changed=true why="" text="HELLO"
	// "HELLO"
}

func ExampleExplain() {
	redact := middleware.Middleware{
		Name: "redact",
		Output: func(ctx context.Context, s string) (string, error) {
			n := strings.Count(s, "secret")
			if n > 0 {
				middleware.Explain(ctx, fmt.Sprintf("redacted %d secrets", n))
			}
			return strings.ReplaceAll(s, "secret", "[redacted]"), nil
		},
	}
	out, trace, _ := middleware.Run(context.Background(), middleware.PhaseOutput, []middleware.Middleware{redact}, "a secret and a secret")
	fmt.Println(out)
	fmt.Println(trace[0].Why)
	// Output:
	// a [redacted] and a [redacted]
	// redacted 2 secrets
}

func ExampleDeny() {
	block := middleware.Middleware{
		Name: "no-passwords",
		Input: func(ctx context.Context, s string) (string, error) {
			if strings.Contains(s, "password") {
				return "", middleware.Deny("input mentions a password")
			}
			return s, nil
		},
	}
	out, _, err := middleware.Run(context.Background(), middleware.PhaseInput, []middleware.Middleware{block}, "my password is hunter2")
	fmt.Printf("%q\n", out)
	fmt.Println(err)
	var de *middleware.DeniedError
	if errors.As(err, &de) {
		fmt.Println(de.Name, de.Phase, de.Reason)
	}
	fmt.Println(errors.Is(err, middleware.ErrDenied))
	// Output:
	// ""
	// middleware: input step "no-passwords" denied: input mentions a password
	// no-passwords input input mentions a password
	// true
}

// A step that panics denies the text too, and the error names it.
func ExampleDeniedError() {
	buggy := middleware.Middleware{
		Name: "buggy",
		Output: func(ctx context.Context, s string) (string, error) {
			panic("boom")
		},
	}
	_, _, err := middleware.Run(context.Background(), middleware.PhaseOutput, []middleware.Middleware{buggy}, "answer")
	var de *middleware.DeniedError
	if errors.As(err, &de) {
		fmt.Println(de.Name, de.Reason, de.Panic)
	}
	// Output:
	// buggy panic: boom boom
}

func ExampleValidate() {
	noop := func(ctx context.Context, s string) (string, error) { return s, nil }
	fmt.Println(middleware.Validate(
		middleware.Middleware{Name: "a", Output: noop},
		middleware.Middleware{Name: "a", Input: noop},
		middleware.Middleware{Name: "empty"},
	))
	// Output:
	// middleware: steps 0 and 1 are both named "a"
	// middleware: step 2 ("empty") has neither Input nor Output
}
