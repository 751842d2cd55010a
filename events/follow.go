package events

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// FollowFile opens the file log at name read-only, as a reader beside its
// writer: it takes no lock, never writes, and refuses Append with
// [ErrInvalid]. It sees the writer's records on Last, Records and Wait,
// checking the file's size on each call and every [PollEvery] interval
// (50ms) while Wait waits. The damage OpenFile refuses is [ErrCorrupt]
// here too, naming the first line that is not a record (a JSON document
// that is no log is refused at once); a last line that is not JSON is
// taken for a torn write, which the writer's next OpenFile truncates,
// until more follows it. A torn line reaching 16 MiB, a file that shrinks below what
// was read, or one rewritten with another history is [ErrCorrupt] from
// then on. Other FileOptions have no effect here.
func FollowFile(name string, opts ...FileOption) (Follower, error) {
	// Details. A line still being written is left for the next check,
	// which reads only the bytes added since. Each check that finds new
	// lines first reads the last record read again, at its offset, and
	// compares it with what was read before: so a file rewritten in place
	// is found when it grows. A file renamed away is still followed; the
	// name is not looked at again.
	o, err := newFileOptions(opts)
	if err != nil {
		return nil, err
	}
	if abs, err := filepath.Abs(name); err == nil {
		name = abs
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, &Error{Op: "open", Err: err}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &Error{Op: "open", Err: err}
	}
	l := &fileLog{f: f, name: name, id: idOf(st), opt: o, stop: make(chan struct{}), readOnly: true}
	if err := l.refresh(); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// defaultPoll is how often a waiting reader of a file log checks the file.
const defaultPoll = 50 * time.Millisecond

// refresh reads, on a log opened by FollowFile, the complete records
// written since the last refresh; l.mu must be held. On a writer's log
// (which knows its records) and a closed log it does nothing.
func (l *fileLog) refresh() error {
	switch {
	case !l.readOnly || l.closed:
		return nil
	case l.broken != nil:
		return l.broken
	}
	st, err := l.f.Stat()
	if err != nil {
		return &Error{Op: "read", Err: err}
	}
	size := st.Size()
	switch {
	case size < l.size:
		return &Error{Op: "read", Seq: int64(len(l.offsets)), Detail: fmt.Sprintf("the file shrank to %d bytes, below the %d bytes of records already read", size, l.size), Err: ErrCorrupt}
	case size < l.size+l.tail: // the writer removed a failed write
		l.tail, l.tailBad = 0, nil
	case size == l.size+l.tail:
		return nil // nothing new: the bytes after the records were read already
	}
	if size == l.size {
		return nil
	}
	seq := int64(len(l.offsets)) + 1
	switch {
	case l.tailBad != nil: // a damaged complete line with more after it is no torn write
		return l.tailBad
	case l.tail > 0:
		// A line still being written: read only what was added to it,
		// for its end, so that a long one costs its length once.
		from := l.size + l.tail
		l.scanned += size - from
		ended, err := hasNewline(io.NewSectionReader(l.f, from, size-from))
		if err != nil {
			return &Error{Op: "read", Seq: seq, Err: err}
		}
		if !ended {
			if l.tail = size - l.size; l.tail >= maxLine {
				// Sticky: the bytes that show it are read already.
				l.broken = &Error{Op: "read", Seq: seq, Detail: fmt.Sprintf("the line at byte %d is over the %d-byte line bound", l.size, maxLine), Err: ErrCorrupt}
				return l.broken
			}
			return nil
		}
	}
	// New lines to read: first check that the last record read is still
	// there, so that a file rewritten in place with another history is
	// not read on as this one.
	if n := len(l.offsets); n > 0 {
		sum, err := l.lineSum(n - 1)
		if err != nil {
			return err
		}
		if sum != l.lastSum {
			return &Error{Op: "read", Seq: int64(n), Detail: fmt.Sprintf("the file was rewritten: record %d is no longer the one read at its offset", n), Err: ErrCorrupt}
		}
	}
	l.scanned += size - l.size
	offsets, good, torn, err := scanLog(io.NewSectionReader(l.f, l.size, size-l.size), "read", int64(len(l.offsets)), l.size)
	if err != nil {
		return err
	}
	for _, off := range offsets {
		l.offsets = append(l.offsets, l.size+off)
	}
	l.size += good
	l.tail, l.tailBad = size-l.size, torn
	if len(offsets) == 0 {
		return nil
	}
	if l.lastSum, err = l.lineSum(len(l.offsets) - 1); err != nil {
		return err
	}
	l.wake()
	return nil
}

// hasNewline reads r to its end, or to its first newline.
func hasNewline(r io.Reader) (bool, error) {
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if bytes.IndexByte(buf[:n], '\n') >= 0 {
			return true, nil
		}
		switch {
		case err == io.EOF:
			return false, nil
		case err != nil:
			return false, err
		}
	}
}

// lineSum hashes the line of record i+1, which ends at l.size when it
// is the last one read.
func (l *fileLog) lineSum(i int) ([sha256.Size]byte, error) {
	end := l.size
	if i+1 < len(l.offsets) {
		end = l.offsets[i+1]
	}
	h := sha256.New()
	l.scanned += end - l.offsets[i]
	if _, err := io.Copy(h, io.NewSectionReader(l.f, l.offsets[i], end-l.offsets[i])); err != nil {
		return [sha256.Size]byte{}, &Error{Op: "read", Seq: int64(i + 1), Err: err}
	}
	return [sha256.Size]byte(h.Sum(nil)), nil
}

// Wait implements Follower. On the writer's log it wakes on each Append;
// on a reader (FollowFile) it also checks the file every poll interval.
func (l *fileLog) Wait(ctx context.Context, after int64) error {
	var tick <-chan time.Time
	for {
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			return &Error{Op: "wait", Err: ErrClosed}
		}
		if err := l.refresh(); err != nil {
			l.mu.Unlock()
			return err
		}
		if int64(len(l.offsets)) > after {
			l.mu.Unlock()
			return nil
		}
		if l.grew == nil {
			l.grew = make(chan struct{})
		}
		grew := l.grew
		l.mu.Unlock()
		if l.readOnly && tick == nil {
			if tick = l.opt.pollTick; tick == nil {
				t := time.NewTicker(l.opt.poll)
				defer t.Stop()
				tick = t.C
			}
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-l.stop:
		case <-grew:
		case <-tick:
		}
	}
}

// Follow returns a read-only stream of session id over log, whose records
// another process appends: its subscribers, WaitTurn and ServeHTTP
// deliver them live, in order, each once. The stream owns log; Append is
// refused with [ErrInvalid]. When the log fails (unreadable, a foreign or
// out-of-sequence record) the stream closes and waiters end with
// [ErrClosed] wrapping its error. An empty id follows the session of the
// log's first record, for a viewer of any log: until one is read the
// stream holds nothing, and a cursor is [ErrStale].
func Follow(id string, log Follower, opts ...Option) (*Stream, error) {
	if log == nil {
		return nil, &Error{Op: "open", Detail: "nil log", Err: ErrInvalid}
	}
	o, err := newStreamOptions(opts)
	if err != nil {
		return nil, err
	}
	s, err := newStream(id, log, o)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.readOnly, s.stopFollow, s.followed = true, cancel, make(chan struct{})
	go s.pump(ctx, log)
	return s, nil
}

// pump publishes the records another process appends to s's log, until
// ctx ends or the log fails.
func (s *Stream) pump(ctx context.Context, log Follower) {
	defer close(s.followed)
	for {
		s.mu.Lock()
		last := s.last
		s.mu.Unlock()
		if err := log.Wait(ctx, last); err != nil {
			if ctx.Err() == nil {
				s.fail(err)
			}
			return
		}
		for rec, err := range log.Records(last) {
			if err == nil {
				s.mu.Lock()
				err = s.belongs("follow", rec)
				s.mu.Unlock()
			}
			if err == nil && rec.Sequence != last+1 {
				err = &Error{Op: "follow", Seq: rec.Sequence, Detail: fmt.Sprintf("sequence must be %d", last+1), Err: ErrCorrupt}
			}
			var e entry
			if err == nil {
				e, err = fold(rec)
			}
			if err != nil {
				if ctx.Err() == nil {
					s.fail(err)
				}
				return
			}
			s.mu.Lock()
			s.publish(e)
			s.mu.Unlock()
			last = e.seq
		}
	}
}
