package wire

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
)

func TestOptionsKeepTheFirstInvalidOne(t *testing.T) {
	o := Options[[]string]{System: "acme"}
	if o.Err() != nil {
		t.Fatalf("Err() = %v before any option, want nil", o.Err())
	}
	o.Invalid("WithX(%d): want at least 1", 0)
	o.Adjust("WithParams", nil)
	err := o.Err()
	if !errors.Is(err, agent.ErrInvalidOption) {
		t.Fatalf("Err() = %v, want agent.ErrInvalidOption", err)
	}
	if got, want := err.Error(), agent.ErrInvalidOption.Error()+": acme: WithX(0): want at least 1"; got != want {
		t.Errorf("Err() = %q, want %q", got, want)
	}
}

func TestANilAdjustmentIsInvalid(t *testing.T) {
	o := Options[[]string]{System: "acme"}
	o.Adjust("WithConfig", nil)
	if got, want := o.Err().Error(), agent.ErrInvalidOption.Error()+": acme: WithConfig(nil)"; got != want {
		t.Errorf("Err() = %q, want %q", got, want)
	}
}

func TestAdjustmentsRunInTheOrderTheOptionsCame(t *testing.T) {
	var o Options[[]string]
	for _, s := range []string{"a", "b", "c"} {
		o.Adjust("WithParams", func(p *[]string) { *p = append(*p, s) })
	}
	var p []string
	o.Apply(&p)
	if want := []string{"a", "b", "c"}; !slices.Equal(p, want) {
		t.Errorf("Apply made %q, want %q", p, want)
	}
}

// fakeSDK spells each option as a string, so that their order shows.
var fakeSDK = SDK[string]{
	ResponseInto: func(**http.Response) string { return "into" },
	MaxRetries:   func(n int) string { return "retries=" + strconv.Itoa(n) },
	Middleware: func(...func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error)) string {
		return "bound"
	},
}

func TestRequestOptionsPutTheBoundsNearestTheSocket(t *testing.T) {
	var raw *http.Response
	tests := []struct {
		name          string
		clientRetries bool
		want          []string
	}{
		{"the SDK's retries off", false, []string{"into", "retries=0", "caller1", "caller2", "bound"}},
		{"the client's retries kept", true, []string{"into", "caller1", "caller2", "bound"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fakeSDK.RequestOptions(&raw, tt.clientRetries, []string{"caller1", "caller2"}, false)
			if !slices.Equal(got, tt.want) {
				t.Errorf("RequestOptions = %q, want %q", got, tt.want)
			}
		})
	}
}
