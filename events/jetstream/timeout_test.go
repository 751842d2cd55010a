package jetstream_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
	enforcerjs "github.com/enforcer-go/enforcer/events/jetstream"
)

// timedJS hands out streams that check the deadline of each GetMsg.
type timedJS struct {
	jetstream.JetStream
	t       *testing.T
	timeout time.Duration
	gets    int
	done    time.Time // when the last GetMsg returned
}

func (j *timedJS) Stream(ctx context.Context, name string) (jetstream.Stream, error) {
	st, err := j.JetStream.Stream(ctx, name)
	if err != nil {
		return nil, err
	}
	return &timedStream{Stream: st, js: j}, nil
}

type timedStream struct {
	jetstream.Stream
	js *timedJS
}

// GetMsg fails the test when its deadline was set before the previous
// request returned: the timeout then bounds more than this request.
func (s *timedStream) GetMsg(ctx context.Context, seq uint64, opts ...jetstream.GetMsgOpt) (*jetstream.RawStreamMsg, error) {
	j := s.js
	dl, ok := ctx.Deadline()
	switch {
	case !ok:
		j.t.Errorf("request %d has no deadline", j.gets+1)
	case j.gets > 0 && dl.Add(-j.timeout).Before(j.done):
		j.t.Errorf("request %d: its deadline was set before request %d returned; the timeout covers more than one request", j.gets+1, j.gets)
	}
	j.gets++
	defer func() { j.done = time.Now() }()
	return s.Stream.GetMsg(ctx, seq, opts...)
}

// WithTimeout bounds each request Open makes, not the scan of the whole
// session (one request per record): a long session must open again.
func TestOpenTimesEachRequestNotTheWholeScan(t *testing.T) {
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
	if l.Last() != n || tj.gets < n {
		t.Fatalf("Last = %d after %d requests, want %d records", l.Last(), tj.gets, n)
	}
}
