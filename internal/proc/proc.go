// Package proc starts child processes that end when their caller does:
// each runs in a process group of its own, and when its context is done
// (or its caller cleans up) every process of the group is killed, not
// only the one that was started — a go command's compilers and test
// binaries, a browser's helpers.
//
// The test command (internal/testall) runs the go command with it, and
// every test that starts a process starts it with [ForTest], whose
// deadline falls before the test binary's own -timeout: a test stopped
// for time says what its child was doing instead of dying in a
// goroutine dump with the child left running.
package proc

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// WaitDelay is how long Wait waits, once the group was killed, for the
// child's output to close before it returns anyway.
const WaitDelay = 5 * time.Second

// Cmd is an [exec.Cmd] whose process runs in a group of its own. Its
// Wait, Run, Output and CombinedOutput kill whatever the child left in
// the group before they return, and say so when the context stopped it.
type Cmd struct {
	*exec.Cmd
	ctx   context.Context
	start time.Time
}

// Command returns a [Cmd] for name and args. When ctx is done the whole
// group is killed.
func Command(ctx context.Context, name string, args ...string) *Cmd {
	c := &Cmd{Cmd: exec.CommandContext(ctx, name, args...), ctx: ctx}
	ownGroup(c.Cmd)
	c.Cancel = func() error { return killGroup(c.Cmd) }
	c.WaitDelay = WaitDelay
	return c
}

// Margin is how long before a test's deadline [ForTest] stops the child:
// time for the test to report what it was doing and to clean up.
const Margin = 20 * time.Second

// ForTest returns a [Command] whose context ends with the test, or
// [Margin] before the test binary's -timeout, whichever comes first;
// when the test ends, whatever is left of the group is killed.
func ForTest(t testing.TB, name string, args ...string) *Cmd {
	t.Helper()
	ctx := t.Context()
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if deadline, ok := d.Deadline(); ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, earlier(deadline, time.Now()))
			t.Cleanup(cancel)
		}
	}
	c := Command(ctx, name, args...)
	t.Cleanup(func() {
		c.Reap()
		if c.Process != nil && c.ProcessState == nil {
			_ = c.Cmd.Wait() // a child the test started and left: reaped, not a zombie
		}
	})
	return c
}

// earlier is Margin before deadline, or halfway there when less time
// than twice the margin is left.
func earlier(deadline, now time.Time) time.Time {
	left := deadline.Sub(now)
	if left < 2*Margin {
		return now.Add(left / 2)
	}
	return deadline.Add(-Margin)
}

// Start starts the child, as [exec.Cmd.Start] does; when the context
// is already done, the error is a *[StoppedError].
func (c *Cmd) Start() error {
	c.start = time.Now()
	return c.stopped(c.Cmd.Start(), nil)
}

// Wait waits for the child to exit, then kills what is left of its
// group. When the context stopped the child, the error is a
// *[StoppedError].
func (c *Cmd) Wait() error {
	err := c.Cmd.Wait()
	c.Reap()
	return c.stopped(err, nil)
}

// Run starts the child and waits for it, as [Cmd.Wait] does.
func (c *Cmd) Run() error {
	if err := c.Start(); err != nil {
		return err
	}
	return c.Wait()
}

// Output runs the child and returns its standard output.
func (c *Cmd) Output() ([]byte, error) {
	var out syncBuffer
	c.Stdout = &out
	err := c.Run()
	return out.Bytes(), c.tail(err, out.Bytes())
}

// CombinedOutput runs the child and returns its standard output and
// standard error together.
func (c *Cmd) CombinedOutput() ([]byte, error) {
	var out syncBuffer
	c.Stdout, c.Stderr = &out, &out
	err := c.Run()
	return out.Bytes(), c.tail(err, out.Bytes())
}

// Reap kills every process still in the child's group. It is safe to
// call more than once, before the child started and when nothing is left.
func (c *Cmd) Reap() {
	if c.Process != nil {
		_ = killGroup(c.Cmd)
	}
}

// stopped turns the error of a child its context stopped into a
// *StoppedError.
func (c *Cmd) stopped(err error, out []byte) error {
	if err == nil || c.ctx.Err() == nil {
		return err
	}
	return &StoppedError{Args: c.Args, Ran: time.Since(c.start).Round(time.Millisecond), Cause: context.Cause(c.ctx), Last: lastLines(out, 20)}
}

// tail adds the last lines printed to a *StoppedError.
func (c *Cmd) tail(err error, out []byte) error {
	if se, ok := err.(*StoppedError); ok {
		se.Last = lastLines(out, 20)
	}
	return err
}

// StoppedError is what a [Cmd] returns when its context stopped it.
type StoppedError struct {
	Args  []string      // the command line
	Ran   time.Duration // how long it ran
	Cause error         // the context's cause
	Last  string        // the last lines it printed, when they were kept
}

func (e *StoppedError) Error() string {
	msg := fmt.Sprintf("%s: stopped after %s: %v", strings.Join(e.Args, " "), e.Ran, e.Cause)
	if e.Last != "" {
		msg += "; the last it printed:\n" + e.Last
	}
	return msg
}

func (e *StoppedError) Unwrap() error { return e.Cause }

// lastLines returns at most n lines from the end of b.
func lastLines(b []byte, n int) string {
	s := strings.TrimRight(string(b), "\n")
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// syncBuffer is a bytes.Buffer that stdout and stderr may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.b.Bytes())
}
