package jetstream_test

import (
	"errors"
	"testing"

	"github.com/enforcer-go/enforcer/events"
	enforcerjs "github.com/enforcer-go/enforcer/events/jetstream"
)

func TestOpenRefusesBadOptionsAndArguments(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	for name, opt := range map[string]enforcerjs.Option{
		"WithStream(a.b)":        enforcerjs.WithStream("a.b"),
		"WithStream()":           enforcerjs.WithStream(""),
		"WithSubjectPrefix(a.)":  enforcerjs.WithSubjectPrefix("a."),
		"WithSubjectPrefix(a.*)": enforcerjs.WithSubjectPrefix("a.*"),
		"CreateStream(0)":        enforcerjs.CreateStream(0),
		"WithTimeout(0)":         enforcerjs.WithTimeout(0),
	} {
		if l, err := enforcerjs.Open(t.Context(), js, session, opt); !errors.Is(err, events.ErrInvalid) {
			if l != nil {
				l.Close()
			}
			t.Errorf("Open with %s = %v, want ErrInvalid", name, err)
		}
	}
	if _, err := enforcerjs.Open(t.Context(), js, "", enforcerjs.CreateStream(1)); !errors.Is(err, events.ErrInvalid) {
		t.Errorf("Open of an empty session = %v, want ErrInvalid", err)
	}
	if _, err := enforcerjs.Open(t.Context(), js, session, enforcerjs.WithStream("MISSING")); err == nil {
		t.Error("Open found a stream that does not exist, without CreateStream")
	}
}
