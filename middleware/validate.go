package middleware

import (
	"errors"
	"fmt"
)

// Validate checks a list before it is used: every step has a non-empty
// Name, no two share one, and each has at least one Func. It reports every
// problem at once (joined with errors.Join) and returns nil for a good list,
// including an empty one. Names matter because a DeniedError and a trace
// point at a step by name alone.
func Validate(ms ...Middleware) error {
	var errs []error
	first := make(map[string]int, len(ms))
	for i, m := range ms {
		switch j, seen := first[m.Name]; {
		case m.Name == "":
			errs = append(errs, fmt.Errorf("middleware: step %d has no Name", i))
		case seen:
			errs = append(errs, fmt.Errorf("middleware: steps %d and %d are both named %q", j, i, m.Name))
		default:
			first[m.Name] = i
		}
		if m.Input == nil && m.Output == nil {
			errs = append(errs, fmt.Errorf("middleware: step %d (%q) has neither Input nor Output", i, m.Name))
		}
	}
	return errors.Join(errs...)
}
