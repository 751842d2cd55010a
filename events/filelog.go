package events

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"
)

// maxLine bounds one record line; longer lines are treated as damage.
const maxLine = 16 << 20

// OpenFile opens the file log at name, creating it when absent: one JSON
// [Record] per line, locked (flock, where there is one) until Close, so a
// second OpenFile, in this process or another, fails with [ErrLocked].
// Once the name no longer names the locked file, or its size is not its
// records', appends fail with an error matching [ErrClosed]. Opening
// recovers from a crash: a torn last line (one that is not JSON, as a
// crash leaves it) is truncated away. Other damage is [ErrCorrupt], naming
// the first line that is not the record due there, and the file is left
// as it is: a line that is JSON but no record (a file that is not a log), a
// sequence gap, a damaged line before the last, a line over 16 MiB.
//
// Append returns once its record is on disk, unless [SyncEvery] batches:
// a record is acknowledged, and seen by Last, Records and readers in this
// process, only after a sync that began after it was written. Appends
// running at once share that sync (group commit): those of one log share
// an fsync, and on Linux 5.8 or later, on ext4, xfs, btrfs and f2fs, the
// logs of one filesystem share one syncfs(2), which reports the write-back
// errors of its whole filesystem; elsewhere each log fsyncs its own file.
// A name through symlinks is synced where its file is: the file's
// directory and filesystem, not the link's.
// A failed sync fails every append it may concern (with syncfs: of each
// log written since the last good sync) and closes those logs as a failed
// write does; the records they had not acknowledged are removed.
func OpenFile(name string, opts ...FileOption) (Log, error) {
	// Details. Elsewhere than flock's systems no lock is taken and two
	// writers would damage the log. The lock belongs to the file, not its
	// name: after a rotation another OpenFile of the name creates and
	// locks a new file, so each append checks (one stat beside the
	// write, os.SameFile) that name still names the locked file; a rename
	// racing one append can still let that append land in the moved file.
	// OpenFile checks once it holds the lock, and opens name again if the
	// file was replaced meanwhile. No write makes a line over the bound,
	// with or without its newline, so one is damage.
	o, err := newFileOptions(opts)
	if err != nil {
		return nil, err
	}
	if abs, err := filepath.Abs(name); err == nil {
		name = abs // the check before each append must not follow a Chdir
	}
	for range 3 {
		f, real, created, err := openLocked(name, o)
		if err != nil {
			return nil, err
		}
		if f == nil {
			continue // replaced between open and lock: open the new file
		}
		l, err := openLog(f, name, filepath.Dir(real), created, o)
		if err != nil {
			f.Close()
			return nil, err
		}
		return l, nil
	}
	return nil, &Error{Op: "open", Detail: name + " is replaced each time it is opened", Err: ErrLocked}
}

// openLocked opens and locks the file at name, and returns the file's
// path with no symlink in it. It returns a nil file when name no longer
// names the file once locked.
//
// The directory fsynced for a new file, and the filesystem its records
// are synced on, are those of that path: through a symlink into another
// filesystem, the link's directory holds no entry of the file, and a
// syncfs of the link's filesystem leaves the file's records unsynced.
func openLocked(name string, o fileOptions) (f *os.File, real string, created bool, err error) {
	_, statErr := os.Stat(name)
	created = errors.Is(statErr, fs.ErrNotExist)
	f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, "", false, &Error{Op: "open", Err: err}
	}
	if o.opened != nil {
		o.opened()
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, "", false, err
	}
	// name, and the resolved path, must both still name the locked file.
	if atPath(f, name) != nil {
		f.Close()
		return nil, "", false, nil
	}
	real, err = filepath.EvalSymlinks(name)
	switch {
	case errors.Is(err, fs.ErrNotExist) || err == nil && atPath(f, real) != nil:
		f.Close()
		return nil, "", false, nil
	case err != nil:
		f.Close()
		return nil, "", false, &Error{Op: "open", Detail: "resolving the path's symlinks", Err: err}
	}
	return f, real, created, nil
}

// atPath reports, with an error, when name no longer names the open file f
// (it was renamed or deleted).
func atPath(f *os.File, name string) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	st, err := os.Stat(name)
	switch {
	case err != nil:
		return err
	case !os.SameFile(fi, st):
		return errors.New("another file")
	}
	return nil
}

// openLog reads the locked file f, opened by name, whose directory
// with no symlink in its path is dir.
func openLog(f *os.File, name, dir string, created bool, o fileOptions) (*fileLog, error) {
	if created {
		if err := o.fsync(nil, dir); err != nil {
			return nil, &Error{Op: "open", Err: err}
		}
	}
	st, err := f.Stat()
	if err != nil {
		return nil, &Error{Op: "open", Err: err}
	}
	offsets, good, _, err := scanLog(io.NewSectionReader(f, 0, st.Size()), "open", 0, 0)
	if err != nil {
		return nil, err
	}
	if good < st.Size() { // a torn tail
		if err := f.Truncate(good); err != nil {
			return nil, &Error{Op: "open", Detail: "truncating a torn last line", Err: err}
		}
		if err := o.fsync(f, ""); err != nil {
			return nil, &Error{Op: "open", Err: err}
		}
	}
	l := &fileLog{f: f, name: name, id: idOf(st), size: good, wsize: good, offsets: offsets, syncedN: int64(len(offsets)),
		opt: o, stop: make(chan struct{})}
	l.c = committerFor(l, dir, o)
	if o.interval > 0 || o.tick != nil {
		tick, stopTicker := o.tick, func() {}
		if tick == nil {
			t := time.NewTicker(o.interval)
			tick, stopTicker = t.C, t.Stop
		}
		l.wg.Add(1)
		go l.syncLoop(tick, stopTicker)
	}
	return l, nil
}

func syncDir(dir string) error {
	if runtime.GOOS == "windows" { // directories cannot be fsynced there
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

type fileLog struct {
	mu      sync.Mutex
	f       *os.File
	name    string  // the absolute path it was opened by
	id      fileID  // of f, to check that name still names it
	size    int64   // bytes of complete records
	offsets []int64 // offsets[i] is where record i+1 starts
	pending int     // records written since the last registration with c (SyncEvery)
	syncs   int     // passes of c that synced records of this log, for tests
	broken  error   // set when the file may no longer match offsets (a reader's: when it cannot be read on)

	c       *committer // runs the fsyncs; nil on a reader's log
	unacked []int64    // where each record written but not acknowledged starts; it follows offsets
	wsize   int64      // bytes written: size and unacked's records
	syncedN int64      // records a finished fsync covers
	syncErr error      // the fsync error that broke the log
	closed  bool
	opt     fileOptions
	stop    chan struct{}
	wg      sync.WaitGroup

	readOnly bool              // opened by FollowFile: it reads what a writer appends
	grew     chan struct{}     // closed when records are added; nil while nobody waits
	lastSum  [sha256.Size]byte // FollowFile: hash of the line of the last record read
	tail     int64             // FollowFile: bytes after size read already, holding no record yet
	tailBad  error             // FollowFile: why they hold a complete line that is not a record
	scanned  int64             // FollowFile: bytes refresh read, for tests
}

func (l *fileLog) Append(rec Record) error {
	if rec.Event == nil {
		return nextSeq(rec.Sequence-1, rec) // reports the missing event
	}
	buf := lines.Get().(*[]byte)
	line := append(appendRecord((*buf)[:0], rec), '\n')
	defer putLine(buf, line) // the file has the line once Write returns
	if len(line) > maxLine {
		// Readers treat longer lines as damage; never write one.
		return &Error{Op: "append", Seq: rec.Sequence, Detail: fmt.Sprintf("record of %d bytes is over the %d-byte line limit", len(line), maxLine), Err: ErrInvalid}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.closed:
		return &Error{Op: "append", Seq: rec.Sequence, Err: ErrClosed}
	case l.readOnly:
		return &Error{Op: "append", Seq: rec.Sequence, Detail: "a log opened by FollowFile is read-only", Err: ErrInvalid}
	case l.broken != nil:
		return l.broken
	}
	if err := nextSeq(l.written(), rec); err != nil {
		return err
	}
	if err := l.checkPath(); err != nil {
		l.broken = err
		return err
	}
	c := l.c
	c.wmu.RLock()
	if n, err := l.f.Write(line); err != nil {
		c.wmu.RUnlock()
		if n > 0 {
			l.undo(err)
		}
		return &Error{Op: "append", Seq: rec.Sequence, Err: err}
	}
	l.unacked = append(l.unacked, l.wsize)
	l.wsize += int64(len(line))
	if l.pending++; l.pending < l.opt.every {
		c.wmu.RUnlock()
		l.ack(l.mark()) // SyncEvery: acknowledged before it is synced
		l.wake()
		return nil
	}
	l.pending = 0
	target := c.register(l, l.mark())
	c.wmu.RUnlock()
	l.mu.Unlock()
	c.wait(target)
	l.mu.Lock()
	switch {
	case l.syncedN >= rec.Sequence:
		return nil
	case l.syncErr != nil:
		return &Error{Op: "append", Seq: rec.Sequence, Detail: "fsync", Err: l.syncErr}
	}
	return l.broken // another append's failed write removed this one
}

// lines holds the buffers appends encode their records in: thousands of
// logs appending at once share a few, where each record allocated its own.
var lines = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// putLine returns buf, which line grew from, to lines, unless it grew past
// what most records take.
func putLine(buf *[]byte, line []byte) {
	if cap(line) <= 64<<10 {
		*buf = line[:0]
		lines.Put(buf)
	}
}

// written is how many records were written, acknowledged or not; l.mu
// must be held.
func (l *fileLog) written() int64 { return int64(len(l.offsets) + len(l.unacked)) }

// mark is how far the writes go; l.mu must be held.
func (l *fileLog) mark() mark { return mark{n: l.written(), size: l.wsize} }

// ack acknowledges the records written up to m, in order; l.mu must be
// held.
func (l *fileLog) ack(m mark) {
	if k := m.n - int64(len(l.offsets)); k > 0 {
		l.offsets = append(l.offsets, l.unacked[:k]...)
		if k == int64(len(l.unacked)) {
			l.unacked = l.unacked[:0] // its room serves the next append
		} else {
			l.unacked = l.unacked[k:]
		}
		l.size = m.size
	}
}

// synced is told by a pass of l.c that the writes up to m are on disk,
// or, when err is not nil, that they may not be: then the log removes
// what it has not acknowledged and refuses every later append.
func (l *fileLog) synced(m mark, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.broken != nil:
		return
	case err != nil:
		l.syncErr = err
		l.undo(err)
		return
	}
	l.syncs++
	l.syncedN = max(l.syncedN, m.n)
	l.ack(m)
	l.wake()
}

// failUnsynced fails l, as a failed sync does, when a record it wrote is
// not synced yet.
func (l *fileLog) failUnsynced(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.broken == nil && l.syncedN < l.written() {
		l.syncErr = err
		l.undo(err)
	}
}

// sync registers what l wrote that no pass covers yet with l.c and waits
// for the pass, releasing l.mu meanwhile; l.mu must be held. It reports
// whether there was any.
func (l *fileLog) sync() bool {
	if l.broken != nil || l.syncedN >= l.written() {
		return false
	}
	l.c.wmu.RLock()
	target := l.c.register(l, l.mark())
	l.c.wmu.RUnlock()
	l.pending = 0
	l.mu.Unlock()
	l.c.wait(target)
	l.mu.Lock()
	return true
}

// wake tells the waiters that records were added; l.mu must be held.
func (l *fileLog) wake() {
	if l.grew != nil {
		close(l.grew)
		l.grew = nil
	}
}

// checkPath refuses to write once the log's path no longer names its file
// (another OpenFile of the path could then lock a new file and write
// there), or once the file is not the size of its records: shrunk under
// the log (logrotate's copytruncate), it no longer holds records the log
// acknowledged, and an append would land at the wrong offset; grown,
// another program wrote to it.
func (l *fileLog) checkPath() error {
	id, size, err := statPath(l.name)
	switch {
	case err != nil:
		return &Error{Op: "append", Detail: "the log's path no longer names its file; reopen the log", Err: fmt.Errorf("%w: %w", ErrClosed, err)}
	case !id.same(l.id):
		return &Error{Op: "append", Detail: l.name + " was replaced: it no longer names the log's file; reopen the log", Err: ErrClosed}
	case size < l.wsize:
		return &Error{Op: "append", Detail: fmt.Sprintf("%s was truncated under the log to %d bytes, below the %d bytes of its records (copytruncate rotation?): records it acknowledged are gone; rotate by renaming, and reopen the log", l.name, size, l.wsize), Err: ErrClosed}
	case size > l.wsize:
		return &Error{Op: "append", Detail: fmt.Sprintf("%s grew under the log to %d bytes, past the %d bytes of its records: another program wrote to it; reopen the log", l.name, size, l.wsize), Err: ErrClosed}
	}
	return nil
}

// undo removes a failed write, and every record not acknowledged, from
// the file. After a failed write or fsync the file's state is uncertain,
// so the log refuses further appends either way, with an error matching
// ErrClosed and cause.
func (l *fileLog) undo(cause error) {
	l.broken = &Error{Op: "append", Detail: "a write or fsync failed; reopen the log", Err: fmt.Errorf("%w: %w", ErrClosed, cause)}
	l.unacked, l.wsize = nil, l.size
	_ = l.f.Truncate(l.size)
}

func (l *fileLog) syncLoop(tick <-chan time.Time, stopTicker func()) {
	defer l.wg.Done()
	defer stopTicker()
	for {
		select {
		case <-l.stop:
			return
		case <-tick:
		}
		l.mu.Lock()
		if !l.closed {
			l.sync()
		}
		l.mu.Unlock()
		if l.opt.synced != nil {
			l.opt.synced()
		}
	}
}

func (l *fileLog) Last() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	_ = l.refresh() // a reader reports the error from Records or Wait
	return int64(len(l.offsets))
}

func (l *fileLog) Records(after int64) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		l.mu.Lock()
		if err := l.refresh(); err != nil {
			l.mu.Unlock()
			yield(Record{}, err)
			return
		}
		closed, n, end := l.closed, int64(len(l.offsets)), l.size
		var start int64
		if after = max(after, 0); after < n {
			start = l.offsets[after]
		}
		l.mu.Unlock()
		if closed {
			yield(Record{}, &Error{Op: "read", Err: ErrClosed})
			return
		}
		if after >= n {
			return
		}
		br := bufio.NewReaderSize(io.NewSectionReader(l.f, start, end-start), 64<<10)
		var buf []byte
		for seq, off := after+1, start; seq <= n; seq++ {
			line, size, complete, err := readLine(br, buf)
			buf = line
			if err == nil && !complete {
				err = io.ErrUnexpectedEOF
			}
			if err != nil {
				yield(Record{}, &Error{Op: "read", Seq: seq, Err: err})
				return
			}
			rec, err := decodeLine(line, "read", seq, off)
			if err != nil {
				yield(Record{}, err)
				return
			}
			if !yield(rec, nil) {
				return
			}
			off += size
		}
	}
}

func (l *fileLog) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	var err error
	if l.c != nil && l.sync() && l.syncErr != nil {
		err = l.syncErr
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.mu.Unlock()
	close(l.stop)
	l.wg.Wait()
	if l.c != nil {
		l.c.release(l)
	}
	if err != nil {
		return &Error{Op: "close", Err: err}
	}
	return nil
}

// scanLog reads a log file from the start and returns where each record
// starts, the length of the good prefix (everything up to a damaged last
// line) and, when the last complete line is damaged as a torn write can
// leave it, why (an error naming it). The first line read must hold
// record base+1; r starts at byte from of the file, for the offsets
// errors name; op is theirs. A line that is, or without its newline
// already is, over maxLine bytes is ErrCorrupt, even last: no write of a
// log makes one, so it is no line still being written or torn by a crash.
// Nor is a complete line that is JSON but not the record due (another
// document, an unknown kind, a record out of sequence): a torn write
// leaves a part of a record, which is no JSON value.
func scanLog(r io.Reader, op string, base, from int64) (offsets []int64, good int64, torn, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	var end int64 // bytes of the complete lines read
	for {
		line, n, complete, rerr := readLine(br, buf)
		buf = line
		if rerr == io.EOF {
			break
		}
		seq := base + int64(len(offsets)) + 1
		switch {
		case rerr == errLineTooLong || !complete && n >= maxLine:
			return nil, 0, nil, &Error{Op: op, Seq: seq, Detail: fmt.Sprintf("the line at byte %d is over the %d-byte line bound", from+end, maxLine), Err: ErrCorrupt}
		case rerr != nil:
			return nil, 0, nil, &Error{Op: op, Err: rerr}
		case torn != nil: // a damaged line with more after it is not a torn write
			return nil, 0, nil, torn
		case !complete:
			return offsets, good, nil, nil
		}
		_, derr := decodeLine(line, op, seq, from+end)
		switch {
		case derr == nil:
			offsets = append(offsets, end)
			good = end + n
		case json.Valid(line):
			return nil, 0, nil, derr
		default:
			torn = derr
		}
		end += n
	}
	return offsets, good, torn, nil
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line, newline included, reusing buf. n is the
// number of bytes consumed; complete reports a trailing newline. A line
// that passes maxLine bytes is read no further: errLineTooLong, with n
// past maxLine. At the end of input it returns io.EOF with n == 0.
func readLine(br *bufio.Reader, buf []byte) (line []byte, n int64, complete bool, err error) {
	buf = buf[:0]
	for {
		frag, e := br.ReadSlice('\n')
		n += int64(len(frag))
		need := len(buf) + len(frag)
		if need > maxLine {
			return buf[:0], n, false, errLineTooLong
		}
		if need > cap(buf) { // double, not append's 1.25: a 16 MiB line costs 32 MiB, not 80
			buf = append(make([]byte, 0, min(max(2*cap(buf), need), maxLine)), buf...)
		}
		buf = append(buf, frag...)
		switch {
		case e == bufio.ErrBufferFull:
			continue
		case e == nil:
			return buf, n, true, nil
		case e != io.EOF:
			return buf, n, false, e
		case n == 0:
			return buf, 0, false, io.EOF
		}
		return buf, n, false, nil
	}
}

// decodeLine decodes line, complete, which should hold record seq and
// starts at byte off of the file. When it does not, it returns an *Error
// of op matching ErrCorrupt that names the line and says why; scanLog
// decides whether a torn write could have left it.
func decodeLine(line []byte, op string, seq, off int64) (Record, error) {
	var rec Record
	if err := rec.UnmarshalJSON(bytes.TrimSuffix(line, []byte("\n"))); err != nil {
		return Record{}, &Error{Op: op, Seq: seq, Detail: fmt.Sprintf("line %d at byte %d is not a record", seq, off), Err: errors.Join(ErrCorrupt, err)}
	}
	if rec.Sequence != seq {
		return Record{}, &Error{Op: op, Seq: seq, Detail: fmt.Sprintf("line %d at byte %d", seq, off), Err: errors.Join(ErrCorrupt, fmt.Errorf("sequence %d where %d was due", rec.Sequence, seq))}
	}
	return rec, nil
}
