package jetstream_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
	enforcerjs "github.com/enforcer-go/enforcer/events/jetstream"
)

// timedJS hands out streams that check the deadline of each request.
type timedJS struct {
	jetstream.JetStream
	t        *testing.T
	timeout  time.Duration
	requests int       // requests with a context
	fetches  int       // fetches of a batch (bounded by FetchMaxWait)
	done     time.Time // when the last request returned
}

func (j *timedJS) Stream(ctx context.Context, name string) (jetstream.Stream, error) {
	st, err := j.JetStream.Stream(ctx, name)
	if err != nil {
		return nil, err
	}
	return &timedStream{Stream: st, js: j}, nil
}

// check fails the test when the deadline of ctx was set before the
// previous request returned: the timeout then bounds more than this
// request. It returns the func to call when the request returns.
func (j *timedJS) check(ctx context.Context, what string) func() {
	dl, ok := ctx.Deadline()
	switch {
	case !ok:
		j.t.Errorf("request %d (%s) has no deadline", j.requests+1, what)
	case j.requests > 0 && dl.Add(-j.timeout).Before(j.done):
		j.t.Errorf("request %d (%s): its deadline was set before request %d returned; the timeout covers more than one request", j.requests+1, what, j.requests)
	}
	j.requests++
	return func() { j.done = time.Now() }
}

type timedStream struct {
	jetstream.Stream
	js *timedJS
}

func (s *timedStream) GetMsg(ctx context.Context, seq uint64, opts ...jetstream.GetMsgOpt) (*jetstream.RawStreamMsg, error) {
	defer s.js.check(ctx, "GetMsg")()
	return s.Stream.GetMsg(ctx, seq, opts...)
}

func (s *timedStream) GetLastMsgForSubject(ctx context.Context, subject string) (*jetstream.RawStreamMsg, error) {
	defer s.js.check(ctx, "GetLastMsgForSubject")()
	return s.Stream.GetLastMsgForSubject(ctx, subject)
}

func (s *timedStream) CreateConsumer(ctx context.Context, cfg jetstream.ConsumerConfig) (jetstream.Consumer, error) {
	defer s.js.check(ctx, "CreateConsumer")()
	c, err := s.Stream.CreateConsumer(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &countedConsumer{Consumer: c, js: s.js}, nil
}

func (s *timedStream) DeleteConsumer(ctx context.Context, name string) error {
	defer s.js.check(ctx, "DeleteConsumer")()
	return s.Stream.DeleteConsumer(ctx, name)
}

type countedConsumer struct {
	jetstream.Consumer
	js *timedJS
}

func (c *countedConsumer) Fetch(batch int, opts ...jetstream.FetchOpt) (jetstream.MessageBatch, error) {
	c.js.fetches++
	return c.Consumer.Fetch(batch, opts...)
}

// WithTimeout bounds each request Open makes, not the scan of the whole
// session: a long session must open again.
func TestOpenTimesEachRequestNotTheWholeScan(t *testing.T) {
	defer enforcerjs.SetReadBatch(2)()
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	w := open(t, js, session)
	st, err := events.NewStream(session, w)
	if err != nil {
		t.Fatal(err)
	}
	const n = 5
	for range n {
		if _, err := st.Append(events.TurnStarted{TurnID: "t1"}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	const timeout = time.Hour
	tj := &timedJS{JetStream: js, t: t, timeout: timeout}
	l, err := enforcerjs.Open(t.Context(), tj, session, enforcerjs.WithTimeout(timeout))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Last() != n || tj.fetches < 3 {
		t.Fatalf("Last = %d after %d fetches of at most 2 records, want %d records in 3 fetches or more", l.Last(), tj.fetches, n)
	}
}
