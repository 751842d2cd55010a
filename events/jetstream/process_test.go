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
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
	enforcerjs "github.com/enforcer-go/enforcer/events/jetstream"
	"github.com/enforcer-go/enforcer/internal/proc"
)

// writerEnv names the server a re-run of this test binary writes turns
// to, as the writer process; with agentEnv set, an agent runs each turn.
const (
	writerEnv = "ENFORCERJS_WRITER_URL"
	agentEnv  = "ENFORCERJS_WRITER_AGENT"
)

func TestMain(m *testing.M) {
	if url := os.Getenv(writerEnv); url != "" {
		if os.Getenv(agentEnv) != "" {
			os.Exit(agentWriter(url))
		}
		os.Exit(writer(url))
	}
	os.Exit(m.Run())
}

// openStream opens the session's stream over JetStream at url, for a
// writer process; closeAll closes the stream and the connection.
func openStream(url string) (_ *events.Stream, closeAll func(), _ error) {
	nc, js, err := dial(url)
	if err != nil {
		return nil, nil, err
	}
	l, err := enforcerjs.Open(context.Background(), js, session)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	s, err := events.NewStream(session, l)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return s, func() { s.Close(); nc.Close() }, nil
}

// agentWriter runs one agent turn per line of stdin, recording it on the
// session's stream: the model is rate limited once, then answers. It
// prints "ok" once each turn has ended.
func agentWriter(url string) int {
	s, closeAll, err := openStream(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer closeAll()
	calls := 0
	model := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		if calls++; calls%2 == 1 {
			return agent.Response{}, &agent.ProviderError{System: "openai", Kind: events.KindRateLimit, HTTPStatus: 429, Message: "rate limited"}
		}
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: "done"}}, nil
	})
	a := agent.New(model, agent.WithEvents(s),
		agent.WithModelRetry(agent.RetryPolicy{MaxAttempts: 2, Backoff: func(int, error) time.Duration { return 0 }}))
	in := bufio.NewScanner(os.Stdin)
	for i := 1; in.Scan(); i++ {
		if _, err := a.Run(agent.ContextWithTurnID(context.Background(), fmt.Sprintf("t%d", i)), "go"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		fmt.Println("ok")
	}
	return 0
}

// writer appends one turn/started record per line of stdin and prints
// "ok" once each is acknowledged; it returns when stdin ends.
func writer(url string) int {
	s, closeAll, err := openStream(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer closeAll()
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
	cmd   *proc.Cmd
	in    io.WriteCloser
	acks  *bufio.Scanner
	next  func() (events.Notification, error, bool)
	close func()
}

func startCrossProcess(t testing.TB, url string, js jetstream.JetStream, env ...string) *crossProcess {
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
	cmd := proc.ForTest(t, os.Args[0])
	cmd.Env = append(append(os.Environ(), writerEnv+"="+url), env...)
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

// An agent in a writer process runs turns, each rate limited once; this
// process serves SSE over a stream that follows the session; the client
// sees each turn's frames — started, retry scheduled, completed — once,
// in order, with strictly increasing cursors.
func TestSSEOverAFollowedJetStreamLogDeliversAnotherProcesssAgentTurns(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	cp := startCrossProcess(t, s.ClientURL(), js, agentEnv+"=1")
	want := []events.Method{events.MethodTurnStarted, events.MethodModelRetry, events.MethodTurnCompleted}
	last := ""
	for i := 1; i <= 3; i++ {
		if _, err := io.WriteString(cp.in, "turn\n"); err != nil {
			t.Fatal(err)
		}
		for _, method := range want {
			n, err, ok := cp.next()
			if err != nil || !ok {
				t.Fatalf("the SSE stream ended: %v", err)
			}
			turn := fmt.Sprintf(`"turnId":"t%d"`, i)
			if n.Method != method || !strings.Contains(string(n.Params), turn) {
				t.Fatalf("turn %d: frame %s %s, want %s of t%d", i, n.Method, n.Params, method, i)
			}
			if c := n.Cursor(); c <= last {
				t.Fatalf("turn %d: cursor %q after %q: a frame seen twice or out of order", i, c, last)
			}
			last = n.Cursor()
		}
		if !cp.acks.Scan() {
			t.Fatal("the writer process ended")
		}
	}
}
