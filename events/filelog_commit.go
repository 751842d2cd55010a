package events

import (
	"os"
	"path/filepath"
	"sync"
)

// A committer makes the fsyncs of file logs group commits. An append
// registers its log, with how far its writes go, and waits for the first
// pass that starts after its write; one pass covers every write
// registered before it. A log's own committer fsyncs its one file, so
// concurrent appenders of one log share an fsync. Where syncfs(2) is
// known to make a filesystem's data durable and to report its write-back
// errors (see syncfs_linux.go), every log on that filesystem shares one
// committer, whose pass is one syncfs: thousands of sessions appending at
// once cost one sync per pass instead of one fsync per record. There is
// no goroutine: the first waiter finding no pass running runs the next
// one itself.
type committer struct {
	// wmu is held for reading across each write and its registration, and
	// for writing while a pass takes its batch: so every write is in the
	// batch of the pass after it or an earlier one, never between, and an
	// error a syncfs reports reaches every write it may concern (see
	// fail).
	wmu sync.RWMutex

	mu       sync.Mutex
	cond     sync.Cond
	batch    map[*fileLog]mark // registered since the last pass started
	spare    map[*fileLog]mark // the last pass's batch, emptied, for the next
	started  uint64            // passes started
	finished uint64            // passes finished
	running  bool

	sync func(batch map[*fileLog]mark) error // syncs what batch names

	// A shared committer's filesystem; nil and zero on a log's own.
	dir  *os.File // syncfs's file: opened before any of its logs wrote, so it sees every write-back error since
	dev  uint64
	logs map[*fileLog]bool // the open logs using it, under mu
}

// mark is how far a log's writes go: its records and bytes written.
type mark struct {
	n    int64
	size int64
}

// ownCommitter is the committer of one log, which fsyncs its file.
func ownCommitter() *committer {
	c := &committer{sync: func(batch map[*fileLog]mark) error {
		for l := range batch {
			if err := l.opt.fsync(l.f, ""); err != nil {
				return err
			}
		}
		return nil
	}}
	c.cond.L = &c.mu
	return c
}

// shared holds the committers of filesystems that syncfs covers, by device.
var shared struct {
	mu sync.Mutex
	m  map[uint64]*committer
}

// committerFor returns the committer of a log whose file is in dir: its
// filesystem's shared one when syncfs covers it and no test hook replaces
// the fsync, else one of the log's own.
func committerFor(l *fileLog, dir string, o fileOptions) *committer {
	if o.commit != nil {
		o.commit.join(l)
		return o.commit
	}
	if o.noSync || o.syncFile != nil {
		return ownCommitter()
	}
	dev, ok := syncfsDevice(dir)
	if !ok {
		return ownCommitter()
	}
	shared.mu.Lock()
	defer shared.mu.Unlock()
	c := shared.m[dev]
	if c == nil {
		d, err := os.Open(filepath.Clean(dir))
		if err != nil {
			return ownCommitter()
		}
		c = &committer{dir: d, dev: dev}
		c.sync = func(map[*fileLog]mark) error { return syncfs(d) }
		c.cond.L = &c.mu
		if shared.m == nil {
			shared.m = make(map[uint64]*committer)
		}
		shared.m[dev] = c
	}
	c.join(l)
	return c
}

// join counts l among the logs of c.
func (c *committer) join(l *fileLog) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.logs == nil {
		c.logs = make(map[*fileLog]bool)
	}
	c.logs[l] = true
}

// release is called by l's Close once nothing it wrote waits for a
// pass: the last log of a shared committer closes its directory.
func (c *committer) release(l *fileLog) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	c.mu.Lock()
	delete(c.logs, l)
	last := len(c.logs) == 0
	c.mu.Unlock()
	if last && c.dir != nil && shared.m[c.dev] == c {
		// No pass runs: each pass holds logs that wait for it, open.
		delete(shared.m, c.dev)
		c.dir.Close()
	}
}

// register adds l, written up to m, to the next pass and returns that
// pass's number for wait; c.wmu must be held for reading, across the
// write.
func (c *committer) register(l *fileLog, m mark) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.batch == nil {
		c.batch, c.spare = c.spare, nil
		if c.batch == nil {
			c.batch = make(map[*fileLog]mark)
		}
	}
	c.batch[l] = m
	return c.started + 1
}

// wait returns once pass target has finished, running passes itself
// while none runs. A pass's outcome is on its logs (see fileLog.synced).
func (c *committer) wait(target uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.finished < target {
		if c.running {
			c.cond.Wait()
			continue
		}
		c.running = true
		c.mu.Unlock()
		c.wmu.Lock() // no write between registering and this pass's batch
		c.mu.Lock()
		batch := c.batch
		c.batch = nil
		c.started++
		pass := c.started
		c.mu.Unlock()
		c.wmu.Unlock()

		err := c.sync(batch)
		for l, m := range batch {
			l.synced(m, err)
		}
		if err != nil && c.dir != nil {
			// syncfs names no file: every log with a write it may
			// concern fails, those written since the batch was taken and
			// those acknowledged unsynced (SyncEvery) too. Taking wmu
			// waits for the writes under way, so each is counted; a
			// write after it is reported by a later sync. (Not held
			// while failing: a writer holds its log's mutex, then wmu.)
			c.wmu.Lock()
			c.mu.Lock()
			logs := make([]*fileLog, 0, len(c.logs))
			for l := range c.logs {
				logs = append(logs, l)
			}
			c.mu.Unlock()
			c.wmu.Unlock()
			for _, l := range logs {
				l.failUnsynced(err)
			}
		}

		clear(batch) // a map keeps its room: the next batch is as large
		c.mu.Lock()
		c.spare = batch
		c.finished = pass
		c.running = false
		c.cond.Broadcast()
	}
}
