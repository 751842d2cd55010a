// Package loadbench runs a benchmark's operations from many goroutines at
// once, as thousands of concurrent sessions make them, and reports what
// the process spent on each in processor time, which a machine shared
// with other work moves far less than wall time.
//
//	n := loadbench.Sessions(b, 2000)
//	loadbench.Run(b, n, func(i int) error { return turn(sessions[i]) })
package loadbench

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/enforcer-go/enforcer/internal/proc"
)

// Sessions is how many sessions a benchmark runs at once: def, or the
// count ENFORCER_BENCH_SESSIONS names.
func Sessions(b *testing.B, def int) int {
	v := os.Getenv("ENFORCER_BENCH_SESSIONS")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("ENFORCER_BENCH_SESSIONS=%q, want a count", v)
	}
	return n
}

// Run makes b.N calls of op, timed, from workers goroutines, the i-th
// calling op(i) until none are left, and reports cpu-ns/op: the
// process's user and system time per call (getrusage where there is
// one). The first error a call returns fails b, once every goroutine
// has stopped.
func Run(b *testing.B, workers int, op func(i int) error) {
	var left atomic.Int64
	left.Store(int64(b.N))
	errs := make(chan error, workers)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := proc.CPUTime()
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				if err := op(i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	cpu := proc.CPUTime() - cpu0
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// Server starts this test binary again, with env set to 1, to run the
// test named test as a server in a process of its own (so that its work
// is not counted in this one's processor time; see [Serve]), and returns
// the address it listens on. The server stops when b ends.
func Server(b *testing.B, test, env string) string {
	cmd := proc.ForTest(b, os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close() // the server exits
		cmd.Wait()
	})
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	return strings.TrimSpace(addr)
}

// Serve is the body of a server test [Server] starts: unless env is set
// it skips t; else it serves h on a loopback port, prints the address,
// and exits the process once its standard input closes.
func Serve(t *testing.T, env string, h http.Handler) {
	if os.Getenv(env) == "" {
		t.Skip("a benchmark's server, run by loadbench.Server")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go http.Serve(ln, h)
	fmt.Println(ln.Addr())
	io.Copy(io.Discard, os.Stdin) // until the benchmark is gone
	os.Exit(0)
}
