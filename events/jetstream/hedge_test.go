package jetstream_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	enforcerjs "github.com/enforcer-go/enforcer/events/jetstream"
)

// silentFirstJS never answers its first Stream request, as a stream whose
// leader is gone does not, and tells first how that request ended.
type silentFirstJS struct {
	jetstream.JetStream
	calls atomic.Int32
	first chan error
}

func (j *silentFirstJS) Stream(ctx context.Context, name string) (jetstream.Stream, error) {
	if j.calls.Add(1) == 1 {
		<-ctx.Done()
		j.first <- ctx.Err()
		return nil, ctx.Err()
	}
	return j.JetStream.Stream(ctx, name)
}

// A read of Open's that goes unanswered (a stream electing its leader) is
// sent again beside it: the answer to the second opens the log, and the
// first is cancelled then, not waited out to its timeout.
func TestOpenSendsAnUnansweredReadAgainBesideIt(t *testing.T) {
	defer enforcerjs.SetHedgeAfter(time.Millisecond)()
	s := startServer(t, t.TempDir(), -1)
	nc, js, err := dial(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	open(t, js, session) // creates the stream
	hj := &silentFirstJS{JetStream: js, first: make(chan error, 1)}
	l, err := enforcerjs.Open(t.Context(), hj, session, enforcerjs.WithTimeout(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if err := <-hj.first; !errors.Is(err, context.Canceled) {
		t.Errorf("the unanswered request ended with %v, want it cancelled once the one sent beside it was answered", err)
	}
	if n := hj.calls.Load(); n < 2 {
		t.Errorf("Stream was asked %d times, want the unanswered request sent again", n)
	}
}
