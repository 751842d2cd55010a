package middleware_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/middleware"
)

func TestValidate(t *testing.T) {
	// Validate has no sentinel: its errors are for people configuring a
	// list, so the test checks how many problems were found and that each
	// message points at the right step.
	tests := []struct {
		name string
		ms   []middleware.Middleware
		want []string // one substring per reported problem, in order
	}{
		{name: "an empty list is valid"},
		{
			name: "named steps with a Func each are valid",
			ms:   []middleware.Middleware{{Name: "a", Input: pass}, {Name: "b", Output: pass}, {Name: "c", Input: pass, Output: pass}},
		},
		{
			name: "a step without a name is reported by index",
			ms:   []middleware.Middleware{{Name: "a", Output: pass}, {Output: pass}},
			want: []string{"step 1 has no Name"},
		},
		{
			name: "a repeated name is reported with both indexes",
			ms:   []middleware.Middleware{{Name: "a", Output: pass}, {Name: "b", Output: pass}, {Name: "a", Input: pass}},
			want: []string{`steps 0 and 2 are both named "a"`},
		},
		{
			name: "a name used three times is reported against its first use",
			ms:   []middleware.Middleware{{Name: "a", Output: pass}, {Name: "a", Output: pass}, {Name: "a", Output: pass}},
			want: []string{`steps 0 and 1`, `steps 0 and 2`},
		},
		{
			name: "a step with neither Func is reported",
			ms:   []middleware.Middleware{{Name: "idle"}},
			want: []string{`step 0 ("idle") has neither Input nor Output`},
		},
		{
			name: "every problem is reported at once",
			ms:   []middleware.Middleware{{}, {Name: "x", Output: pass}, {Name: "x", Output: pass}},
			want: []string{"step 0 has no Name", "step 0", `steps 1 and 2`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := middleware.Validate(tt.ms...)
			var got []error
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				got = j.Unwrap()
			} else if err != nil {
				got = []error{err}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("Validate() = %v, want %d problems", err, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i].Error(), w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], w)
				}
			}
			if errors.Is(err, middleware.ErrDenied) {
				t.Errorf("Validate() error matches ErrDenied; a bad list is not a denial")
			}
		})
	}
}
