// Package proc starts child processes that end when their caller does.
// Each child leads a process group of its own; when its context is done
// the group is interrupted (so a go command removes its work folder),
// and when the child exits, or the test that started it ends, whatever
// is left of the group is killed: a go command's compilers and test
// binaries, a browser's helpers. On Linux a child is also killed when
// the process that started it dies.
//
// The test command (internal/testall) runs the go command with it, and
// every test that starts a process starts it with [ForTest], whose
// deadline falls before the test binary's own -timeout: a test stopped
// for time says what its child was doing instead of dying in a
// goroutine dump with the child left running.
package proc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// waitDelay bounds how long a child may take to exit once interrupted
// before it is killed.
const waitDelay = 5 * time.Second

// Cmd is an [exec.Cmd] whose process leads a group of its own. Its
// Wait, Run and CombinedOutput kill what the child left in the group
// before they return, and return a *[StoppedError] when the context
// stopped it.
type Cmd struct {
	*exec.Cmd
	ctx   context.Context
	start time.Time

	mu     sync.Mutex
	reaped bool // the group was killed after the leader was waited for: its id may be reused
}

// Command returns a [Cmd] for name and args.
func Command(ctx context.Context, name string, args ...string) *Cmd {
	c := &Cmd{Cmd: exec.CommandContext(ctx, name, args...), ctx: ctx}
	c.Cancel = func() error { return signalGroup(c.Cmd, interrupt) }
	c.WaitDelay = waitDelay
	return c
}

// margin is how long before a test's deadline ForTest stops the child:
// time for the test to report what it was doing and to clean up.
const margin = 20 * time.Second

// ForTest returns a [Command] whose context ends with the test, or 20
// seconds before the test binary's -timeout, whichever comes first.
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
	t.Cleanup(c.reap) // a child the test started and never waited for
	return c
}

// earlier is margin before deadline, or halfway there when less time
// than twice the margin is left.
func earlier(deadline, now time.Time) time.Time {
	left := deadline.Sub(now)
	if left < 2*margin {
		return now.Add(left / 2)
	}
	return deadline.Add(-margin)
}

// Start starts the child, as [exec.Cmd.Start] does; when the context
// is already done, the error is a *[StoppedError].
func (c *Cmd) Start() error {
	ownGroup(c.Cmd) // here, not in Command, so a SysProcAttr set since is kept
	c.start = time.Now()
	return c.stopped(c.Cmd.Start(), nil)
}

// Wait waits for the child to exit, then kills what is left of its
// group.
func (c *Cmd) Wait() error {
	err := c.Cmd.Wait()
	c.mu.Lock()
	if !c.reaped {
		// Right after the leader was reaped its pid is not handed out
		// again (pids are given in turn), so the group id still names
		// only what the child left.
		_ = signalGroup(c.Cmd, kill)
		c.reaped = true
	}
	c.mu.Unlock()
	return c.stopped(err, nil)
}

// Run starts the child and waits for it, as [Cmd.Wait] does.
func (c *Cmd) Run() error {
	if err := c.Start(); err != nil {
		return err
	}
	return c.Wait()
}

// CombinedOutput runs the child and returns its standard output and
// standard error together. They go to a file, not a pipe, so that a
// process the child left behind holding them open does not keep Wait
// waiting.
func (c *Cmd) CombinedOutput() ([]byte, error) {
	f, err := os.CreateTemp("", "proc-output-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	c.Stdout, c.Stderr = f, f
	err = c.Run()
	out, rerr := os.ReadFile(f.Name())
	if err == nil {
		err = rerr
	}
	if se, ok := err.(*StoppedError); ok {
		se.Last = lastLines(out, 20)
	}
	return out, err
}

// reap kills every process still in the child's group, unless Wait
// already did (the group id may name another group by now).
func (c *Cmd) reap() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Process != nil && !c.reaped {
		_ = signalGroup(c.Cmd, kill)
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
