package events

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// gate is a committer's sync that blocks each pass until the test lets
// it go, and counts the passes and the logs each one held.
type gate struct {
	mu      sync.Mutex
	entered chan int // pass number, as each pass starts syncing
	release chan error
	batches []int
}

func newGate() *gate { return &gate{entered: make(chan int, 16), release: make(chan error)} }

func (g *gate) committer() *committer {
	c := &committer{sync: func(batch map[*fileLog]mark) error {
		g.mu.Lock()
		g.batches = append(g.batches, len(batch))
		n := len(g.batches)
		g.mu.Unlock()
		g.entered <- n
		return <-g.release
	}}
	c.cond.L = &c.mu
	return c
}

func withCommitter(c *committer) FileOption {
	return fileOption(func(o *fileOptions) { o.commit = c })
}

// waitBatch returns once n logs are registered for c's next pass.
func waitBatch(c *committer, n int) {
	for {
		c.mu.Lock()
		got := len(c.batch)
		c.mu.Unlock()
		if got >= n {
			return
		}
		runtime.Gosched()
	}
}

func record(seq int64) Record {
	return Record{Stream: testSession, Sequence: seq, ID: fmt.Sprintf("id-%d", seq), Event: TurnStarted{TurnID: "t", CommandID: "t"}}
}

func TestAppendsToLogsOfOneCommitterShareAPassAndReturnOnlyAfterIt(t *testing.T) {
	g := newGate()
	c := g.committer()
	dir := t.TempDir()
	logs := make([]Log, 3)
	for i := range logs {
		l, err := OpenFile(filepath.Join(dir, fmt.Sprint(i)), withCommitter(c))
		if err != nil {
			t.Fatal(err)
		}
		logs[i] = l
	}
	done := make([]chan error, 3)
	appendTo := func(i int) {
		done[i] = make(chan error, 1)
		go func() { done[i] <- logs[i].Append(record(1)) }()
	}
	appendTo(0)
	select {
	case pass := <-g.entered:
		if pass != 1 {
			t.Fatalf("pass %d started, want 1", pass)
		}
	case err := <-done[0]:
		t.Fatalf("append returned (%v) with no sync", err)
	}
	// The first pass holds log 0's record; the others' wait for the next.
	appendTo(1)
	appendTo(2)
	waitBatch(c, 2)
	for i, d := range done {
		select {
		case err := <-d:
			t.Fatalf("append to log %d returned (%v) before any pass finished", i, err)
		default:
		}
	}
	g.release <- nil
	if err := <-done[0]; err != nil {
		t.Fatal(err)
	}
	<-g.entered
	select {
	case err := <-done[1]:
		t.Fatalf("append to log 1 returned (%v) before the pass holding it finished", err)
	default:
	}
	g.release <- nil
	for i := 1; i < 3; i++ {
		if err := <-done[i]; err != nil {
			t.Fatal(err)
		}
	}
	if got, want := g.batches, []int{1, 2}; !slicesEqual(got, want) {
		t.Errorf("logs per pass = %v, want %v: three appends, two passes", got, want)
	}
	for i, l := range logs {
		if got := l.Last(); got != 1 {
			t.Errorf("log %d: Last = %d, want 1", i, got)
		}
		if err := l.Close(); err != nil { // nothing pending: no pass
			t.Error(err)
		}
	}
}

func TestConcurrentAppendsToOneLogShareAnFsync(t *testing.T) {
	g := newGate()
	l, err := OpenFile(filepath.Join(t.TempDir(), "s"), withCommitter(g.committer()))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	fl := l.(*fileLog)
	first := make(chan error, 1)
	go func() { first <- l.Append(record(1)) }()
	select {
	case <-g.entered:
	case err := <-first:
		t.Fatalf("append returned (%v) with no fsync", err)
	}
	// While record 1's fsync runs, records 2 and 3 are written and wait.
	rest := make(chan error, 2)
	go func() { rest <- l.Append(record(2)) }()
	waitBatch(fl.c, 1)
	go func() { rest <- l.Append(record(3)) }()
	for {
		fl.mu.Lock()
		n := fl.written()
		fl.mu.Unlock()
		if n == 3 {
			break
		}
		runtime.Gosched()
	}
	if got := l.Last(); got != 0 {
		t.Errorf("Last = %d while nothing is synced, want 0", got)
	}
	g.release <- nil
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if got := l.Last(); got != 1 {
		t.Errorf("Last = %d after the first fsync, want 1", got)
	}
	<-g.entered
	g.release <- nil
	for range 2 {
		if err := <-rest; err != nil {
			t.Fatal(err)
		}
	}
	if got, want := len(g.batches), 2; got != want {
		t.Errorf("%d fsyncs for 3 appends, want %d", got, want)
	}
	if got := l.Last(); got != 3 {
		t.Errorf("Last = %d, want 3", got)
	}
}

// A syncfs names no file: when it fails, every log with a write it may
// concern refuses — those in its pass, those written while it ran, and
// those holding records SyncEvery acknowledged unsynced — and a log with
// nothing unsynced goes on.
func TestAFailedSharedPassFailsEveryLogItMayConcern(t *testing.T) {
	g := newGate()
	c := g.committer()
	dir := t.TempDir()
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	c.dir = d // a shared committer's: a failure concerns every log written
	open := func(name string) *fileLog {
		l, err := OpenFile(filepath.Join(dir, name), withCommitter(c))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l.(*fileLog)
	}
	a, b, quiet := open("a"), open("b"), open("quiet")
	l, err := OpenFile(filepath.Join(dir, "batched"), withCommitter(c), SyncEvery(10, 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	t.Cleanup(func() { close(g.release) }) // first: the logs' Close may sync
	batched := l.(*fileLog)
	if err := batched.Append(record(1)); err != nil { // acknowledged, not synced
		t.Fatal(err)
	}
	appendTo := func(l *fileLog, seq int64) chan error {
		done := make(chan error, 1)
		go func() { done <- l.Append(record(seq)) }()
		return done
	}
	q := appendTo(quiet, 1)
	<-g.entered
	g.release <- nil
	if err := <-q; err != nil {
		t.Fatal(err)
	}

	da := appendTo(a, 1)
	<-g.entered
	db := appendTo(b, 1) // written while the pass holding a's record syncs
	waitBatch(c, 1)
	g.release <- errInjected
	<-g.entered // b's pass: b is refused already, whatever it says
	g.release <- nil
	for name, done := range map[string]chan error{"a": da, "b": db} {
		if err := <-done; !errors.Is(err, errInjected) {
			t.Errorf("append to %s = %v, want the sync error", name, err)
		}
	}
	if err := batched.Append(record(2)); !errors.Is(err, ErrClosed) || !errors.Is(err, errInjected) {
		t.Errorf("a log holding a record acknowledged unsynced: a later append = %v, want ErrClosed and the sync error", err)
	}
	for name, l := range map[string]*fileLog{"a": a, "b": b} {
		if got := l.Last(); got != 0 {
			t.Errorf("%s: Last = %d, want 0", name, got)
		}
		if st, err := os.Stat(l.name); err != nil || st.Size() != 0 {
			t.Errorf("%s: the record not acknowledged is still in the file (%v)", name, err)
		}
		if err := l.Append(record(1)); !errors.Is(err, ErrClosed) {
			t.Errorf("%s: a later append = %v, want ErrClosed", name, err)
		}
	}
	q = appendTo(quiet, 2)
	<-g.entered
	g.release <- nil
	if err := <-q; err != nil {
		t.Errorf("a log with nothing unsynced at the failure: append = %v", err)
	}
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

var errInjected = errors.New("injected sync failure")

func TestLogsOnAFilesystemSyncfsCoversShareOneSyncfs(t *testing.T) {
	dir := t.TempDir()
	dev, ok := syncfsDevice(dir)
	if !ok {
		t.Skip("syncfs does not cover this filesystem here: each log fsyncs its own file")
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	var logs []*fileLog
	for _, name := range []string{filepath.Join(dir, "a"), filepath.Join(sub, "b")} {
		l, err := OpenFile(name)
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, l.(*fileLog))
	}
	c := logs[0].c
	if c != logs[1].c || c.dir == nil {
		t.Fatalf("two logs on one filesystem have committers %p and %p, want one shared", c, logs[1].c)
	}
	for _, l := range logs {
		if err := l.Append(record(1)); err != nil {
			t.Fatal(err)
		}
		if l.syncs != 1 {
			t.Errorf("%s: %d syncs, want 1", l.name, l.syncs)
		}
	}
	for _, l := range logs {
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	shared.mu.Lock()
	_, kept := shared.m[dev]
	shared.mu.Unlock()
	if kept {
		t.Error("the filesystem's committer outlived its last log")
	}
	if _, err := c.dir.Stat(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("the committer's directory: Stat = %v, want it closed", err)
	}
}
