package jetstream_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
)

// recreateStream deletes the default stream and creates it again with
// its configuration, empty: another history may then be written under
// its name.
func recreateStream(t *testing.T, js jetstream.JetStream) {
	t.Helper()
	st, err := js.Stream(t.Context(), "ENFORCER_SESSIONS")
	if err != nil {
		t.Fatal(err)
	}
	cfg := st.CachedInfo().Config
	if err := js.DeleteStream(t.Context(), cfg.Name); err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateStream(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
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
	if err := js.DeleteStream(t.Context(), "ENFORCER_SESSIONS"); err != nil {
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
