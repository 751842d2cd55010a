package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/middleware"
)

// Helpers that the package's tests share.

const (
	valid   = `{"city":"Paris","tempC":21}`
	prose   = "Sure! It is 21 degrees in Paris."
	missing = `{"city":"Paris"}` // schema-validate: tempC is required
)

func weatherSchema(t testing.TB) *enforce.Schema {
	t.Helper()
	s, err := enforce.SchemaFor[Weather]()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// row is the part of an attempt row a test states exactly; the validator's
// own message is left out because it is the validator's text, not ours.
type row struct {
	Attempt   int
	Iteration int
	Outcome   enforce.Outcome
	Stage     enforce.Stage
	Path      string
	BrokenBy  string
	Hashed    bool // CorrectiveMessageHash is set
}

func rows(as []enforce.Attempt) []row {
	var out []row
	for _, a := range as {
		out = append(out, row{
			Attempt: a.Attempt, Iteration: a.Iteration, Outcome: a.Outcome, Stage: a.Stage,
			Path: a.Path, BrokenBy: a.BrokenBy, Hashed: a.CorrectiveMessageHash != "",
		})
	}
	return out
}

func checkError(t testing.TB, s *enforce.Schema, answer string) *enforce.CheckError {
	t.Helper()
	var ce *enforce.CheckError
	if !errors.As(s.Check(answer), &ce) {
		t.Fatalf("Check(%q) passed; the test needs a failing answer", answer)
	}
	return ce
}

// output returns an act-output middleware.
func output(name string, f middleware.Func) middleware.Middleware {
	return middleware.Middleware{Name: name, Output: f}
}

func newStream(t *testing.T) *events.Stream {
	t.Helper()
	s, err := events.NewStream("session-1", events.NewMemoryLog(),
		events.WithClock(func() time.Time { return time.Unix(1754590940, 0) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// methods reads every notification recorded so far.
func methods(t *testing.T, s *events.Stream) ([]string, []events.Notification) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []string
	var ns []events.Notification
	for n, err := range s.Subscribe(ctx, "") {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(n.Method))
		ns = append(ns, n)
		if n.Method == "turn/completed" {
			break
		}
	}
	return got, ns
}

func containsJSON(b []byte, sub string) bool { return strings.Contains(string(b), sub) }
