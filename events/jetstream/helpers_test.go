package jetstream_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// dial connects as the writer process does.
func dial(url string) (*nats.Conn, jetstream.JetStream, error) {
	nc, err := nats.Connect(url)
	if err != nil {
		return nil, nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return nc, js, nil
}

// noRetrierLeft fails the test when a goroutine of an events.Stream
// retrying kept records is still running: a stream left open.
func noRetrierLeft(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	if strings.Contains(string(buf), "events.(*Stream).retryHeld") {
		t.Errorf("a stream's retrier of kept records outlives the test:\n%s", buf)
	}
}
