package toolcall_test

import (
	"regexp"
	"testing"

	"github.com/enforcer-go/enforcer/internal/toolcall"
)

// The gemini adapter recognized the IDs ID makes up with this regexp
// before MadeUp took its place; the two agree on every ID a provider may
// send.
var madeUpForm = regexp.MustCompile(`^call_[0-9]+$`)

func FuzzMadeUpAgreesWithTheFormIDMakes(f *testing.F) {
	for _, id := range []string{"", "call_", "call_0", "call_12", "call_1_2", "call_x", "call_7\n", "fc-1"} {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if got, want := toolcall.MadeUp(id), madeUpForm.MatchString(id); got != want {
			t.Errorf("MadeUp(%q) = %v, want %v", id, got, want)
		}
	})
}
