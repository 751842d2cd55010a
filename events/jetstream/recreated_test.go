package jetstream_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
	enforcerjs "github.com/enforcer-go/enforcer/events/jetstream"
)

// recreateStream deletes the default stream and creates it again with
// its configuration, empty: another history may then be written under
// its name.
func recreateStream(t *testing.T, js jetstream.JetStream) {
	t.Helper()
	st, err := js.Stream(t.Context(), enforcerjs.DefaultStream)
	if err != nil {
		t.Fatal(err)
	}
	cfg := st.CachedInfo().Config
	if err := js.DeleteStream(t.Context(), cfg.Name); err != nil {
		t.Fatal(err)
	}
	// The server removes a file store after it answers the delete: a
	// create right after it can find the store still there ("error
	// creating store for stream", 10049). Each try waits for one more
	// round trip to the server, and at most 200 are made.
	for range 200 {
		if _, err = js.CreateStream(t.Context(), cfg); err == nil {
			return
		}
		var apiErr *jetstream.APIError
		if !errors.As(err, &apiErr) || apiErr.ErrorCode != 10049 {
			break
		}
		if _, ierr := js.AccountInfo(t.Context()); ierr != nil {
			t.Fatal(ierr)
		}
	}
	t.Fatal(err)
}

// A follower whose stream is deleted, and created again with another
// history of the session under the same name, must not deliver that
// history as the rest of the one it read: it ends with ErrCorrupt,
// having delivered nothing of the new one — whether its watch was
// running through the deletion or starts after it.
func TestAFollowerOfAStreamDeletedAndCreatedAgainIsCorrupt(t *testing.T) {
	for _, watching := range []bool{true, false} {
		name := "a follower watching through the deletion"
		if !watching {
			name = "a follower whose watch starts after the stream came back"
		}
		t.Run(name, func(t *testing.T) {
			s := startServer(t, t.TempDir(), -1)
			_, js := connect(t, s.ClientURL())
			_, rjs := connect(t, s.ClientURL())
			appendTagged(t, open(t, js, session), "old", 1, 3)
			r := open(t, rjs, session)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			var waited <-chan error
			if watching {
				waited = blockedWait(ctx, r, 3)
			}
			recreateStream(t, js)
			appendTagged(t, open(t, js, session), "new", 1, 6)
			if !watching {
				waited = blockedWait(ctx, r, 3)
			}
			var err error
			select {
			case err = <-waited:
			case <-ctx.Done():
				t.Fatal("the follower's Wait did not end within 30s of its stream being deleted and created again")
			}
			if !errors.Is(err, events.ErrCorrupt) {
				t.Errorf("Wait = %v, want ErrCorrupt", err)
			}
			for rec, err := range r.Records(0) {
				if err != nil {
					break
				}
				if id := rec.Event.(events.TurnStarted).TurnID; !strings.HasPrefix(id, "old-") {
					t.Errorf("the follower delivered record %d, %s, of the new history", rec.Sequence, id)
				}
			}
		})
	}
}

// A follower whose stream is deleted for good ends with ErrCorrupt
// rather than wait for records that cannot come.
func TestAFollowerOfADeletedStreamIsCorrupt(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	_, rjs := connect(t, s.ClientURL())
	appendTagged(t, open(t, js, session), "old", 1, 3)
	r := open(t, rjs, session)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	waited := blockedWait(ctx, r, 3)
	if err := js.DeleteStream(t.Context(), enforcerjs.DefaultStream); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-waited:
		if !errors.Is(err, events.ErrCorrupt) {
			t.Errorf("Wait = %v, want ErrCorrupt", err)
		}
	case <-ctx.Done():
		t.Fatal("the follower's Wait did not end within 30s of its stream being deleted")
	}
}

// A log that reads back records it no longer keeps in memory (a
// follower far behind) from a stream deleted and created again with
// another history reads ErrCorrupt, not the other history's records:
// each must be the message it saw first, by its digest, whether it is
// read alone or in a batch.
func TestRecordsFromAStreamCreatedAgainAreCorrupt(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	_, rjs := connect(t, s.ClientURL())
	const n = 300 // past the 64 a log keeps, and past one read batch
	appendTagged(t, open(t, js, session), "old", 1, n)
	r := open(t, rjs, session)
	recreateStream(t, js)
	w := open(t, js, session)
	appendTagged(t, w, "old", 1, 1) // the same first record: the rest are read in a batch
	appendTagged(t, w, "new", 2, n)
	for _, after := range []int64{0, 1} { // a batch after the first record, a record alone
		var err error
		for rec, rerr := range r.Records(after) {
			if err = rerr; err != nil {
				break
			}
			if id := rec.Event.(events.TurnStarted).TurnID; !strings.HasPrefix(id, "old-") {
				t.Fatalf("Records(%d) yielded record %d, %s, of the new history", after, rec.Sequence, id)
			}
		}
		if !errors.Is(err, events.ErrCorrupt) {
			t.Errorf("Records(%d) ended with %v, want ErrCorrupt", after, err)
		}
	}
}

// What a client of a follower sees: the old history, then the stream's
// end with ErrCorrupt — never the new history's records after the old
// ones.
func TestAFollowingStreamOfAStreamCreatedAgainEndsWithErrCorrupt(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	_, rjs := connect(t, s.ClientURL())
	appendTagged(t, open(t, js, session), "old", 1, 3)
	r, err := events.Follow(session, open(t, rjs, session))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var ids []string
	var end error
	for n, err := range r.Subscribe(ctx, "") {
		if end = err; err != nil {
			break
		}
		ev, err := n.Event()
		if err != nil {
			t.Fatal(err)
		}
		if ids = append(ids, ev.(events.TurnStarted).TurnID); len(ids) == 3 {
			recreateStream(t, js)
			appendTagged(t, open(t, js, session), "new", 1, 6)
		}
	}
	if want := []string{"old-1", "old-2", "old-3"}; !slices.Equal(ids, want) {
		t.Errorf("the follower delivered %v, want %v", ids, want)
	}
	if !errors.Is(end, events.ErrClosed) || !errors.Is(end, events.ErrCorrupt) {
		t.Errorf("the follower's subscriber ended with %v, want ErrClosed wrapping ErrCorrupt", end)
	}
}
