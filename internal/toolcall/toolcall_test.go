package toolcall_test

import (
	"testing"

	"github.com/enforcer-go/enforcer/internal/toolcall"
)

func TestArgumentsStayValidJSON(t *testing.T) {
	tests := []struct{ name, args, want string }{
		{"none become an empty object", "", "{}"},
		{"valid ones are kept", `{"a":1}`, `{"a":1}`},
		{"broken ones become a JSON string", `{"a":`, `"{\"a\":"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(toolcall.Arguments(tt.args)); got != tt.want {
				t.Errorf("Arguments(%q) = %s, want %s", tt.args, got, tt.want)
			}
		})
	}
}

func TestACallWithoutAnIDGetsOne(t *testing.T) {
	if got, want := [2]string{toolcall.ID("", 2), toolcall.ID("x", 2)}, [2]string{"call_2", "x"}; got != want {
		t.Errorf("ID = %q, want %q", got, want)
	}
}
