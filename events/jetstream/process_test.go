package jetstream_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
	enforcerjs "github.com/enforcer-go/enforcer/events/jetstream"
)

// writerEnv names the server a re-run of this test binary writes turns
// to, as the writer process.
const writerEnv = "ENFORCERJS_WRITER_URL"

func TestMain(m *testing.M) {
	if url := os.Getenv(writerEnv); url != "" {
		os.Exit(writer(url))
	}
	os.Exit(m.Run())
}

// writer appends one turn/started record per line of stdin and prints
// "ok" once each is acknowledged; it returns when stdin ends.
func writer(url string) int {
	nc, js, err := dial(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer nc.Close()
	l, err := enforcerjs.Open(context.Background(), js, session)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	s, err := events.NewStream(session, l)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer s.Close()
	in := bufio.NewScanner(os.Stdin)
	for i := 1; in.Scan(); i++ {
		if _, err := s.Append(events.TurnStarted{TurnID: fmt.Sprintf("t%d", i)}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		fmt.Println("ok")
	}
	return 0
}

// crossProcess is a writer process on the server at url and an SSE
// client of a stream in this process that follows the session.
type crossProcess struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	acks  *bufio.Scanner
	next  func() (events.Notification, error, bool)
	close func()
}

func startCrossProcess(t testing.TB, url string, js jetstream.JetStream) *crossProcess {
	t.Helper()
	l, err := enforcerjs.Open(t.Context(), js, session, enforcerjs.CreateStream(1))
	if err != nil {
		t.Fatal(err)
	}
	r, err := events.Follow(session, l)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(r)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	next, stop := iter.Pull2(events.ReadSSE(resp.Body))
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), writerEnv+"="+url)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cp := &crossProcess{cmd: cmd, in: in, acks: bufio.NewScanner(out), next: next}
	cp.close = func() {
		in.Close()
		cmd.Wait()
		stop()
		cancel()
		resp.Body.Close()
		srv.Close()
		r.Close()
	}
	t.Cleanup(cp.close)
	return cp
}

// turn asks the writer for one record, waits for its acknowledgement, and
// returns the frame the SSE client got for it and the time from the
// request to the frame.
func (cp *crossProcess) turn(t testing.TB) (events.Notification, time.Duration) {
	t.Helper()
	start := time.Now()
	if _, err := io.WriteString(cp.in, "turn\n"); err != nil {
		t.Fatal(err)
	}
	n, err, ok := cp.next()
	took := time.Since(start)
	if err != nil || !ok {
		t.Fatalf("the SSE stream ended: %v", err)
	}
	if !cp.acks.Scan() {
		t.Fatal("the writer process ended")
	}
	return n, took
}

// A writer process appends turns to a JetStream log; this process serves
// SSE over a stream that follows the session; the client sees every frame
// once, in order, as it is appended.
func TestSSEOverAFollowedJetStreamLogDeliversAnotherProcesssTurns(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	cp := startCrossProcess(t, s.ClientURL(), js)
	for i := 1; i <= 5; i++ {
		n, _ := cp.turn(t)
		want := fmt.Sprintf(`"turnId":"t%d"`, i)
		if n.Method != "turn/started" || !strings.Contains(string(n.Params), want) {
			t.Errorf("frame %d is %s %s, want turn/started of t%d", i, n.Method, n.Params, i)
		}
	}
}
