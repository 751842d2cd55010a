package jetstream_test

import (
	"errors"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

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

// Open refuses a stream that cannot hold the session: one whose subjects
// do not take its subject, or one that deletes what consumers read.
func TestOpenRefusesAStreamThatCannotHoldTheSession(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	for _, c := range []jetstream.StreamConfig{
		{Name: "WQ", Subjects: []string{"wq.>"}, Retention: jetstream.WorkQueuePolicy},
		{Name: "INTEREST", Subjects: []string{"in.>"}, Retention: jetstream.InterestPolicy},
		{Name: "ELSEWHERE", Subjects: []string{"elsewhere.>"}},
	} {
		if _, err := js.CreateStream(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ stream, prefix string }{{"WQ", "wq"}, {"INTEREST", "in"}, {"ELSEWHERE", "enforcer.session"}} {
		l, err := enforcerjs.Open(t.Context(), js, session, enforcerjs.WithStream(c.stream), enforcerjs.WithSubjectPrefix(c.prefix))
		if !errors.Is(err, events.ErrInvalid) {
			if l != nil {
				l.Close()
			}
			t.Errorf("Open on stream %s with prefix %s = %v, want ErrInvalid", c.stream, c.prefix, err)
		}
	}
	if _, err := js.CreateStream(t.Context(), jetstream.StreamConfig{Name: "ONE", Subjects: []string{"one.*.x", "one.*"}}); err != nil {
		t.Fatal(err)
	}
	l, err := enforcerjs.Open(t.Context(), js, session, enforcerjs.WithStream("ONE"), enforcerjs.WithSubjectPrefix("one"))
	if err != nil {
		t.Fatalf("Open on a stream whose subject one.* takes the session = %v", err)
	}
	l.Close()
}

func TestSubjectsMatchTheirFilters(t *testing.T) {
	for _, c := range []struct {
		filter, subject string
		want            bool
	}{
		{"a.>", "a.b", true}, {"a.>", "a.b.c", true}, {"a.>", "a", false}, {">", "a", true},
		{"a.*", "a.b", true}, {"a.*", "a.b.c", false}, {"*.b", "a.b", true}, {"a.b", "a.b", true},
		{"a.b", "a.c", false}, {"a.b", "a.b.c", false}, {"a.b.c", "a.b", false}, {"a.*.c", "a.b.c", true},
	} {
		if got := enforcerjs.Matches(c.filter, c.subject); got != c.want {
			t.Errorf("matches(%q, %q) = %v, want %v", c.filter, c.subject, got, c.want)
		}
	}
}
