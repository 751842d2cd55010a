package toolcall_test

import (
	"slices"
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

// The adapters drop the IDs ID made up before a call goes back to a
// provider that takes its own; nothing else is of that form.
func TestMadeUpKnowsTheIDsIDMakesUp(t *testing.T) {
	for _, i := range []int{0, 7, 12} {
		if id := toolcall.ID("", i); !toolcall.MadeUp(id) {
			t.Errorf("MadeUp(%q) = false, want true", id)
		}
	}
	for _, id := range []string{"", "call_", "call_1_2", "call_1_3_2", "call_x", "call_7 ", "Call_1", "fc_1", "call_٣"} {
		if toolcall.MadeUp(id) {
			t.Errorf("MadeUp(%q) = true, want false", id)
		}
	}
}

func TestUniqueRenamesEmptyAndRepeatedIDs(t *testing.T) {
	tests := []struct {
		name      string
		ids       []string
		iteration int
		want      []string
	}{
		{"distinct IDs are kept", []string{"a", "b"}, 1, []string{"a", "b"}},
		{"an empty one gets its place in the iteration", []string{"a", ""}, 3, []string{"a", "call_3_2"}},
		{"a repeat is renamed, the first keeps it", []string{"a", "a"}, 1, []string{"a", "call_1_2"}},
		{"a made-up ID a later call has gets a suffix", []string{"", "call_1_1"}, 1, []string{"call_1_1_2", "call_1_1"}},
		{"none", nil, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := slices.Clone(tt.ids)
			toolcall.Unique(got, func(id *string) *string { return id }, tt.iteration)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Unique(%q, %d) = %q, want %q", tt.ids, tt.iteration, got, tt.want)
			}
		})
	}
}
