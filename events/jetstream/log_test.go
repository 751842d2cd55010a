package jetstream_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
	enforcerjs "github.com/enforcer-go/enforcer/events/jetstream"
	"github.com/enforcer-go/enforcer/events/logtest"
)

const session = "0198f0aa-1111-7000-8000-0000000000aa"

func open(t testing.TB, js jetstream.JetStream, session string, opts ...enforcerjs.Option) *enforcerjs.Log {
	t.Helper()
	l, err := enforcerjs.Open(t.Context(), js, session, append([]enforcerjs.Option{enforcerjs.CreateStream(1), enforcerjs.WithTimeout(2 * time.Second)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestLogKeepsTheLogContract(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	_, other := connect(t, s.ClientURL()) // a reader's own connection, as another process has
	opts := func(name string) []enforcerjs.Option {
		return []enforcerjs.Option{enforcerjs.WithStream("T_" + name), enforcerjs.WithSubjectPrefix("t." + name)}
	}
	logtest.Run(t, logtest.Opener{
		Open: func(t *testing.T, name string) events.Log {
			l, err := enforcerjs.Open(t.Context(), js, "logtest-session", append(opts(name), enforcerjs.CreateStream(1))...)
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
		Durable: true,
		Follow: func(t *testing.T, name string) events.Follower {
			l, err := enforcerjs.Open(t.Context(), other, "logtest-session", opts(name)...)
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
	})
}

func TestASecondWriterGetsAConflictAndWritesNothing(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js1 := connect(t, s.ClientURL())
	_, js2 := connect(t, s.ClientURL())
	l1 := open(t, js1, session)
	l2 := open(t, js2, session) // both saw an empty session
	w1, err := events.NewStream(session, l1)
	if err != nil {
		t.Fatal(err)
	}
	w2, err := events.NewStream(session, l2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w1.Append(events.TurnStarted{TurnID: "t1"}); err != nil {
		t.Fatal(err)
	}
	_, err = w2.Append(events.TurnStarted{TurnID: "t2"})
	var e *events.Error
	if !errors.Is(err, events.ErrConflict) || !errors.As(err, &e) || e.Seq != 1 {
		t.Fatalf("the second writer's Append = %v, want an *events.Error for record 1 matching ErrConflict", err)
	}
	if _, err := w2.Append(events.TurnStarted{TurnID: "t3"}); !errors.Is(err, events.ErrClosed) {
		t.Errorf("the second writer's stream after the conflict: Append = %v, want ErrClosed", err)
	}
	rec := logtestRecord(2)
	if err := l2.Append(rec); !errors.Is(err, events.ErrConflict) {
		t.Errorf("the second writer's log after the conflict: Append = %v, want ErrConflict", err)
	}
	if _, err := w1.Append(events.TurnCompleted{TurnID: "t1", Terminal: "completed"}); err != nil {
		t.Errorf("the first writer cannot go on: %v", err)
	}
	got := readAll(t, open(t, js1, session))
	if len(got) != 2 || got[0].Event.(events.TurnStarted).TurnID != "t1" || got[1].Event.(events.TurnCompleted).TurnID != "t1" {
		t.Errorf("the session holds %v, want the first writer's two records only", got)
	}
}

func TestARecordOverTheMaxPayloadIsRefusedBeforePublishing(t *testing.T) {
	s := startServer(t, t.TempDir(), -1, func(o *server.Options) { o.MaxPayload = 4096 })
	_, js := connect(t, s.ClientURL())
	l := open(t, js, session)
	w, err := events.NewStream(session, l)
	if err != nil {
		t.Fatal(err)
	}
	big := events.SchemaRetry{TurnID: "t1", Attempt: 1, RetriesRemaining: 1, Iteration: 1, Stage: "schema-validate",
		Error: strings.Repeat("x", 8000), CorrectiveMessageHash: "0c1f2e3d"}
	_, err = w.Append(big)
	if !errors.Is(err, events.ErrInvalid) || !strings.Contains(err.Error(), "bytes") {
		t.Fatalf("Append(an 8 KB record) on a 4 KB server = %v, want ErrInvalid saying the size", err)
	}
	if _, err := w.Append(events.TurnStarted{TurnID: "t1"}); err != nil {
		t.Errorf("the stream is unusable after a refused record: %v", err)
	}
	if got := open(t, js, session).Last(); got != 1 {
		t.Errorf("the session holds %d records, want 1 (the refused one never published)", got)
	}
}

func TestASessionIDThatIsNoSubjectTokenGetsItsOwnSubject(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	ids := []string{"a.b", "a b", "a*", "a>", "~a", "a_b-C9"}
	for _, id := range ids {
		l := open(t, js, id)
		w, err := events.NewStream(id, l)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Append(events.TurnStarted{TurnID: "t-" + id}); err != nil {
			t.Fatalf("session %q: %v", id, err)
		}
	}
	for _, id := range ids {
		got := readAll(t, open(t, js, id))
		if len(got) != 1 || got[0].Stream != id {
			t.Errorf("session %q holds %v, want its one record", id, got)
		}
	}
	if got := enforcerjs.Token("a_b-C9"); got != "a_b-C9" {
		t.Errorf("Token(a_b-C9) = %q, want it as is", got)
	}
}

func logtestRecord(seq int64) events.Record {
	return events.Record{Stream: session, Sequence: seq, ID: "018f9008-71aa-7000-8000-000000000001",
		Time: time.UnixMilli(1754590940000).UTC(), Event: events.TurnStarted{TurnID: "x"}}
}

func readAll(t testing.TB, l events.Log) []events.Record {
	t.Helper()
	var got []events.Record
	for rec, err := range l.Records(0) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec)
	}
	return got
}

// reopen opens the session's log again until the server answers, bounded
// by a generous limit (a restart, an election).
func reopen(t *testing.T, js jetstream.JetStream, session string) *enforcerjs.Log {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for {
		l, err := enforcerjs.Open(ctx, js, session, enforcerjs.WithTimeout(time.Second))
		if err == nil {
			t.Cleanup(func() { l.Close() })
			return l
		}
		select {
		case <-ctx.Done():
			t.Fatalf("cannot open the log again: %v", err)
		case <-time.After(20 * time.Millisecond): // retry, bounded by ctx
		}
	}
}

// A session longer than what the log keeps in memory reads back whole and
// in order, in batches; a message deleted from the stream is ErrCorrupt,
// at Open and on a later read.
func TestALongSessionReadsBackInBatchesAndADeletedMessageIsCorrupt(t *testing.T) {
	defer enforcerjs.SetReadBatch(7)()
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	w := open(t, js, session)
	const n = 150 // over the 64 records a log keeps
	appendTagged(t, w, "w", 1, n)
	r := open(t, js, session)
	if got := r.Last(); got != n {
		t.Fatalf("Last() = %d, want %d", got, n)
	}
	checkTagged(t, r, "w", n)
	for _, after := range []int64{0, 1, 40, 86, 87, 149} {
		got := readAll(t, recordsAfter{r, after})
		if len(got) != n-int(after) || got[0].Sequence != after+1 || got[len(got)-1].Sequence != n {
			t.Errorf("Records(%d) yielded %d records, want %d to %d", after, len(got), after+1, n)
		}
	}

	st, err := js.Stream(t.Context(), enforcerjs.DefaultStream)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteMsg(t.Context(), 20); err != nil { // record 20
		t.Fatal(err)
	}
	var last error
	for _, err := range r.Records(0) {
		last = err
	}
	if !errors.Is(last, events.ErrCorrupt) {
		t.Errorf("Records(0) over a deleted message ended with %v, want ErrCorrupt", last)
	}
	if _, err := enforcerjs.Open(t.Context(), js, session); !errors.Is(err, events.ErrCorrupt) {
		t.Errorf("Open of a session with a deleted message = %v, want ErrCorrupt", err)
	}
}

// recordsAfter is a log whose Records(0) is r's Records(after).
type recordsAfter struct {
	*enforcerjs.Log
	after int64
}

func (r recordsAfter) Records(int64) iter.Seq2[events.Record, error] { return r.Log.Records(r.after) }

// The stream's own MaxMsgSize, below the server's max payload, bounds a
// record too, before anything is published.
func TestARecordOverTheStreamsMaxMsgSizeIsRefusedBeforePublishing(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	if _, err := js.CreateStream(t.Context(), jetstream.StreamConfig{Name: "SMALL", Subjects: []string{"small.>"}, MaxMsgSize: 2048}); err != nil {
		t.Fatal(err)
	}
	l := open(t, js, session, enforcerjs.WithStream("SMALL"), enforcerjs.WithSubjectPrefix("small"))
	rec := tagged("w", 1)
	rec.Event = events.TurnStarted{TurnID: strings.Repeat("x", 4000)}
	if err := l.Append(rec); !errors.Is(err, events.ErrInvalid) || !strings.Contains(err.Error(), "SMALL") {
		t.Fatalf("Append(a 4 KB record) to a stream of 2 KB messages = %v, want ErrInvalid naming the stream", err)
	}
	appendTagged(t, l, "w", 1, 1)
	st, err := js.Stream(t.Context(), "SMALL")
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 1 {
		t.Errorf("the stream holds %d messages, want 1: the refused record never published", info.State.Msgs)
	}
}

// Sessions of exactly one read batch (256 records), one more, and two:
// Open and Records, from each point around a batch's and the cache's
// edges, yield every record once, in order.
func TestSessionsAtTheReadBatchsEdgesReadBackWhole(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	for _, n := range []int64{256, 257, 512} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			prefix := fmt.Sprintf("edge%d", n)
			w := open(t, js, session, enforcerjs.WithStream("EDGE_"+fmt.Sprint(n)), enforcerjs.WithSubjectPrefix(prefix))
			appendTagged(t, w, "w", 1, n)
			r := open(t, js, session, enforcerjs.WithStream("EDGE_"+fmt.Sprint(n)), enforcerjs.WithSubjectPrefix(prefix))
			if r.Last() != n {
				t.Fatalf("Last() = %d, want %d", r.Last(), n)
			}
			checkTagged(t, r, "w", n)
			for _, after := range []int64{1, 2, 255, 256, 257, n - 65, n - 64, n - 1, n} {
				if after > n {
					continue
				}
				want := after + 1
				for rec, err := range r.Records(after) {
					if err != nil {
						t.Fatalf("Records(%d): %v", after, err)
					}
					if rec.Sequence != want {
						t.Fatalf("Records(%d) yielded %d where %d was due", after, rec.Sequence, want)
					}
					want++
				}
				if want != n+1 {
					t.Errorf("Records(%d) ended after %d, want %d", after, want-1, n)
				}
			}
		})
	}
}
