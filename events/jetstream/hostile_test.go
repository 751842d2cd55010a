package jetstream_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
	enforcerjs "github.com/enforcer-go/enforcer/events/jetstream"
)

// Messages on a session's subject that are not its records: another
// program's bytes, a record of another session, a record out of sequence.
var foreign = map[string]func() []byte{
	"not our JSON": func() []byte { return []byte("\x00not a record{") },
	"another session's record": func() []byte {
		rec := tagged("w", 2)
		rec.Stream = "another-session"
		data, _ := rec.MarshalJSON()
		return data
	},
	"a record out of sequence": func() []byte {
		data, _ := tagged("w", 7).MarshalJSON()
		return data
	},
}

// Open refuses a session whose subject holds a foreign message with
// ErrCorrupt, naming the record, and so does a follower that meets one
// live: its Wait fails, and a Stream following it closes with the error.
func TestAForeignMessageOnTheSubjectIsCorrupt(t *testing.T) {
	for name, data := range foreign {
		t.Run(name, func(t *testing.T) {
			s := startServer(t, t.TempDir(), -1)
			_, js := connect(t, s.ClientURL())
			_, rjs := connect(t, s.ClientURL())
			w := open(t, js, session)
			appendTagged(t, w, "w", 1, 1)
			r, err := events.Follow(session, open(t, rjs, session))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			if _, err := js.Publish(ctx, "enforcer.session."+session, data()); err != nil {
				t.Fatal(err)
			}
			var got error
			for _, err := range r.Subscribe(ctx, "") {
				if got = err; err != nil {
					break
				}
			}
			if !errors.Is(got, events.ErrClosed) || !errors.Is(got, events.ErrCorrupt) {
				t.Errorf("a follower's subscriber ended with %v, want ErrClosed wrapping ErrCorrupt", got)
			}
			_, err = enforcerjs.Open(t.Context(), js, session)
			var e *events.Error
			if !errors.Is(err, events.ErrCorrupt) || !errors.As(err, &e) || e.Seq != 2 {
				t.Errorf("Open = %v, want an *events.Error for record 2 matching ErrCorrupt", err)
			}
		})
	}
}

// The server goes away in the middle of a session. An Append over a
// connection that buffers while it reconnects (nats.go's default) keeps
// trying for WithRetry and returns with ErrUnavailable, not ErrClosed:
// the record may or may not be stored, and the log takes the same record
// again. An Async log reports the same from Close, naming the record.
func TestAnAppendToAServerThatWentAwayEndsWithinItsRetryBound(t *testing.T) {
	for _, async := range []bool{false, true} {
		opts := []enforcerjs.Option{enforcerjs.WithTimeout(200 * time.Millisecond), enforcerjs.WithRetry(500 * time.Millisecond)}
		if async {
			opts = append(opts, enforcerjs.Async(4))
		}
		s := startServer(t, t.TempDir(), -1)
		nc, js, err := dial(s.ClientURL()) // nats.go's defaults: publishes are buffered while away
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		l := open(t, js, session, opts...)
		appendTagged(t, l, "w", 1, 1)
		if err := enforcerjs.WaitPublished(l); err != nil {
			t.Fatal(err)
		}
		s.Shutdown()
		s.WaitForShutdown()
		done := make(chan error, 1)
		go func() {
			err := l.Append(tagged("w", 2))
			if err == nil {
				err = l.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			var e *events.Error
			if !errors.Is(err, events.ErrUnavailable) || errors.Is(err, events.ErrClosed) || !errors.As(err, &e) || e.Seq != 2 {
				t.Errorf("Append (or, with Async, Close) with the server gone = %v, want an *events.Error for record 2 matching ErrUnavailable", err)
			}
		case <-time.After(30 * time.Second): // a bound on a hang, never reached when it works
			t.Fatal("Append with the server gone did not return")
		}
		want := events.ErrUnavailable // the log takes the record again
		if async {
			want = events.ErrClosed // Close closed it
		}
		if err := l.Append(tagged("w", 2)); !errors.Is(err, want) {
			t.Errorf("a later Append = %v, want %v", err, want)
		}
	}
}

// hookJS runs hook before the first Fetch of a read.
type hookJS struct {
	jetstream.JetStream
	hook func()
}

func (j *hookJS) Stream(ctx context.Context, name string) (jetstream.Stream, error) {
	st, err := j.JetStream.Stream(ctx, name)
	if err != nil {
		return nil, err
	}
	return &hookStream{Stream: st, js: j}, nil
}

type hookStream struct {
	jetstream.Stream
	js *hookJS
}

func (s *hookStream) CreateConsumer(ctx context.Context, cfg jetstream.ConsumerConfig) (jetstream.Consumer, error) {
	c, err := s.Stream.CreateConsumer(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &hookConsumer{Consumer: c, js: s.js}, nil
}

type hookConsumer struct {
	jetstream.Consumer
	js *hookJS
}

func (c *hookConsumer) Fetch(batch int, opts ...jetstream.FetchOpt) (jetstream.MessageBatch, error) {
	if h := c.js.hook; h != nil {
		c.js.hook = nil
		h()
	}
	return c.Consumer.Fetch(batch, opts...)
}

// The server goes away while Open reads the session: Open fails within
// its timeouts, rather than hang or open a log that is missing records.
func TestOpenFailsWhenTheServerGoesAwayMidRead(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	nc, js, err := dial(s.ClientURL()) // nats.go's defaults: requests are buffered while away
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	w := open(t, js, session)
	appendTagged(t, w, "w", 1, 10)
	hj := &hookJS{JetStream: js, hook: func() {
		s.Shutdown()
		s.WaitForShutdown()
	}}
	done := make(chan error, 1)
	go func() {
		l, err := enforcerjs.Open(t.Context(), hj, session, enforcerjs.WithTimeout(200*time.Millisecond), enforcerjs.WithRetry(time.Second))
		if err == nil {
			l.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		var e *events.Error
		if err == nil || !errors.As(err, &e) {
			t.Errorf("Open with the server gone mid-read = %v, want an *events.Error", err)
		}
		t.Log(err)
	case <-time.After(30 * time.Second): // a bound on a hang, never reached when it works
		t.Fatal("Open with the server gone mid-read did not return")
	}
}

// A follower whose connection is closed under it: a Wait blocked for the
// next record returns an error matching ErrClosed, not only when its
// context ends.
func TestAFollowersWaitEndsWhenItsConnectionCloses(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	rnc, rjs := connect(t, s.ClientURL())
	w := open(t, js, session)
	appendTagged(t, w, "w", 1, 1)
	r := open(t, rjs, session)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	waited := blockedWait(ctx, r, 1)
	rnc.Close()
	if err := <-waited; !errors.Is(err, events.ErrClosed) {
		t.Errorf("Wait with its connection closed = %v, want ErrClosed", err)
	}
}

// Open's context ends while it reads the session: Open returns its cause,
// not a log, and not only when the timeout ends.
func TestOpenEndsWithItsContextMidRead(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	w := open(t, js, session)
	appendTagged(t, w, "w", 1, 10)
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("the caller gave up")
	hj := &hookJS{JetStream: js, hook: func() { cancel(cause) }}
	l, err := enforcerjs.Open(ctx, hj, session, enforcerjs.WithTimeout(time.Hour))
	if err == nil {
		l.Close()
	}
	if !errors.Is(err, cause) {
		t.Errorf("Open with its context cancelled mid-read = %v, want its cause", err)
	}
}

// A follower whose connection was closed before its first Wait: the
// watch cannot start, and Wait says so with ErrClosed, as it does when
// the connection closes under a watch already running.
func TestAFollowersFirstWaitAfterItsConnectionClosedIsErrClosed(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	rnc, rjs := connect(t, s.ClientURL())
	w := open(t, js, session)
	appendTagged(t, w, "w", 1, 1)
	r := open(t, rjs, session)
	rnc.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := r.Wait(ctx, 1); !errors.Is(err, events.ErrClosed) {
		t.Errorf("Wait with its connection closed before = %v, want ErrClosed", err)
	}
}

// A foreign message with a Status header and no data looks, to the
// client, like a status of the server's (no messages, a timeout, a
// completed batch, a control message) and never reaches the log: Open
// must still refuse the session with ErrCorrupt naming the record, at
// once, rather than skip the message or wait out its timeout and call it
// a timeout.
func TestAForeignStatusMessageOnTheSubjectIsCorrupt(t *testing.T) {
	for _, c := range []struct{ status, description string }{
		{"404", "No Messages"}, {"408", "Request Timeout"}, {"100", "FlowControl Request"},
		{"409", "Message Size Exceeds MaxBytes"}, {"409", "Consumer Deleted"},
	} {
		for _, at := range []int64{1, 5, 11} { // the first message, amid records, the last
			t.Run(fmt.Sprintf("%s %s at %d", c.status, c.description, at), func(t *testing.T) {
				s := startServer(t, t.TempDir(), -1)
				_, js := connect(t, s.ClientURL())
				w := open(t, js, session)
				appendTagged(t, w, "w", 1, at-1)
				m := nats.NewMsg("enforcer.session." + session)
				m.Header.Set("Status", c.status)
				m.Header.Set("Description", c.description)
				if _, err := js.PublishMsg(t.Context(), m); err != nil {
					t.Fatal(err)
				}
				if at < 11 {
					if _, err := js.Publish(t.Context(), "enforcer.session."+session, mustMarshal(t, tagged("w", at))); err != nil {
						t.Fatal(err)
					}
				}
				// The bound fails a read that waits for the message, which
				// came long before: no timeout of the log's would.
				ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
				defer cancel()
				l, err := enforcerjs.Open(ctx, js, session, enforcerjs.WithTimeout(time.Hour))
				if err == nil {
					l.Close()
				}
				var e *events.Error
				if !errors.Is(err, events.ErrCorrupt) || !errors.As(err, &e) || e.Seq != at {
					t.Errorf("Open = %v, want an *events.Error for record %d matching ErrCorrupt", err, at)
				}
			})
		}
	}
}

func mustMarshal(t *testing.T, rec events.Record) []byte {
	t.Helper()
	data, err := rec.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A follower meets a foreign message with a Status header and no data
// live: the client keeps it from the watch, as it does from Open's read.
// The follower's Wait must fail with ErrCorrupt naming the record, not
// look like a quiet session: when a record follows the message, at once;
// when nothing does, once the watch's fetch comes up short and asks its
// consumer what it delivered.
func TestAFollowerMeetingAForeignStatusMessageIsCorrupt(t *testing.T) {
	defer enforcerjs.SetWatchIdle(200 * time.Millisecond)()
	for _, c := range []struct{ status, description string }{
		{"404", "No Messages"}, {"408", "Request Timeout"}, {"100", "FlowControl Request"},
		{"409", "Message Size Exceeds MaxBytes"}, {"409", "Consumer Deleted"},
	} {
		for _, followed := range []bool{false, true} { // the last message, or a record after it
			t.Run(fmt.Sprintf("%s %s, followed by a record: %v", c.status, c.description, followed), func(t *testing.T) {
				s := startServer(t, t.TempDir(), -1)
				_, js := connect(t, s.ClientURL())
				_, rjs := connect(t, s.ClientURL())
				w := open(t, js, session)
				appendTagged(t, w, "w", 1, 1)
				r := open(t, rjs, session)
				// The bound fails a Wait that waits for a record: the
				// message came long before it ends.
				ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
				defer cancel()
				waited := blockedWait(ctx, r, 1)
				m := nats.NewMsg("enforcer.session." + session)
				m.Header.Set("Status", c.status)
				m.Header.Set("Description", c.description)
				if _, err := js.PublishMsg(ctx, m); err != nil {
					t.Fatal(err)
				}
				if followed {
					if _, err := js.Publish(ctx, "enforcer.session."+session, mustMarshal(t, tagged("w", 2))); err != nil {
						t.Fatal(err)
					}
				}
				err := <-waited
				var e *events.Error
				if !errors.Is(err, events.ErrCorrupt) || !errors.As(err, &e) || e.Seq != 2 {
					t.Errorf("Wait = %v, want an *events.Error for record 2 matching ErrCorrupt", err)
				}
				if err := r.Wait(ctx, 1); !errors.Is(err, events.ErrCorrupt) {
					t.Errorf("a later Wait = %v, want ErrCorrupt again", err)
				}
				if r.Last() != 1 {
					t.Errorf("Last = %d, want 1: nothing past the message is the session's", r.Last())
				}
				r.Close()
				if n := consumers(t, js); n != 0 {
					t.Errorf("%d consumers left on the stream after Close, want 0", n)
				}
			})
		}
	}
}

// blockedWait starts r.Wait(ctx, after) and returns, once it is blocked
// for the next record or has ended, where its result will come.
func blockedWait(ctx context.Context, r *enforcerjs.Log, after int64) <-chan error {
	waited, ended := make(chan error, 1), make(chan struct{})
	go func() {
		waited <- r.Wait(ctx, after)
		close(ended)
	}()
	for !enforcerjs.Waiting(r) && ctx.Err() == nil {
		select {
		case <-ended:
			return waited
		default:
			runtime.Gosched()
		}
	}
	return waited
}

// consumers counts the consumers of the default stream.
func consumers(t *testing.T, js jetstream.JetStream) int {
	t.Helper()
	st, err := js.Stream(t.Context(), enforcerjs.DefaultStream)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for range st.ConsumerNames(t.Context()).Name() {
		n++
	}
	return n
}

// Records on a log whose connection closed, for records it does not keep
// in memory, fails with an error matching ErrClosed, whether the first
// record's read fails or a later batch's does.
func TestRecordsOnAClosedConnectionIsErrClosed(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	w := open(t, js, session)
	appendTagged(t, w, "w", 1, 200) // more than the log keeps in memory
	t.Run("the first record", func(t *testing.T) {
		rnc, rjs := connect(t, s.ClientURL())
		r := open(t, rjs, session)
		defer r.Close()
		rnc.Close()
		for _, err := range r.Records(0) {
			if !errors.Is(err, events.ErrClosed) {
				t.Errorf("Records(0) = %v, want ErrClosed", err)
			}
			break
		}
	})
	t.Run("a later batch", func(t *testing.T) {
		rnc, rjs := connect(t, s.ClientURL())
		r := open(t, rjs, session)
		defer r.Close()
		var got error
		n := 0
		for _, err := range r.Records(0) {
			if got = err; err != nil {
				break
			}
			if n++; n == 1 {
				rnc.Close()
			}
		}
		if n != 1 || !errors.Is(got, events.ErrClosed) {
			t.Errorf("Records(0) after 1 record (got %d) = %v, want ErrClosed", n, got)
		}
	})
}

// A follower's Close ends its watch: no goroutine of it is left, and no
// consumer of it on the server.
func TestAFollowersCloseLeavesNoGoroutineAndNoConsumer(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	_, rjs := connect(t, s.ClientURL())
	w := open(t, js, session)
	appendTagged(t, w, "w", 1, 1)
	r := open(t, rjs, session)
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	waited := make(chan error, 1)
	go func() { waited <- r.Wait(ctx, 1) }()
	appendTagged(t, w, "w", 2, 2)
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	if n := consumers(t, js); n != 1 {
		t.Errorf("%d consumers on the stream while the follower watches, want 1", n)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	// The fetch's own goroutine ends once its context does; poll for it,
	// bounded.
	for bound := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(bound); {
		runtime.Gosched()
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines after Close, %d before the first Wait", after, before)
	}
	if n := consumers(t, js); n != 0 {
		t.Errorf("%d consumers left on the stream after Close, want 0", n)
	}
}
