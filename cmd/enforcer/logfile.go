package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"sync"
	"time"

	"github.com/enforcer-go/enforcer/events"
)

// maxLine bounds one line of a file log, as events.OpenFile does.
const maxLine = 16 << 20

// pollInterval is how often a follower looks at the end of a log for
// more; poll waits for it (tests replace poll).
const pollInterval = 250 * time.Millisecond

var poll = func(ctx context.Context) error {
	t := time.NewTimer(pollInterval)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

// logReader reads the records of a file log as it grows, without taking
// its lock: a writer may be appending. A line without its newline yet is
// left for later (the writer is still writing it, or it is a torn last
// line, which events.OpenFile drops).
type logReader struct {
	name    string
	f       *os.File
	br      *bufio.Reader
	partial []byte
	last    int64  // sequence of the last record read
	stream  string // the session of the records read
}

func openLog(name string) (*logReader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%s is not a regular file", name)
		}
		return nil, err
	}
	return &logReader{name: name, f: f, br: bufio.NewReaderSize(f, 64<<10)}, nil
}

// next returns the next record, false at the end of what the file holds
// now, or an error for a line that is not the next record of the log.
func (r *logReader) next() (events.Record, bool, error) {
	for {
		frag, err := r.br.ReadSlice('\n')
		if len(r.partial)+len(frag) > maxLine {
			return events.Record{}, false, fmt.Errorf("%s: record %d: line over %d bytes", r.name, r.last+1, maxLine)
		}
		r.partial = append(r.partial, frag...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return events.Record{}, false, nil
		case err != nil:
			return events.Record{}, false, fmt.Errorf("%s: %w", r.name, err)
		}
		line := bytes.TrimSuffix(r.partial, []byte("\n"))
		var rec events.Record
		err = json.Unmarshal(line, &rec)
		r.partial = r.partial[:0]
		switch {
		case err != nil:
			return events.Record{}, false, fmt.Errorf("%s: line %d is not a record: %w", r.name, r.last+1, err)
		case rec.Sequence != r.last+1:
			return events.Record{}, false, fmt.Errorf("%s: record %d follows record %d", r.name, rec.Sequence, r.last)
		case r.stream != "" && rec.Stream != r.stream:
			return events.Record{}, false, fmt.Errorf("%s: record %d belongs to session %q, not %q", r.name, rec.Sequence, rec.Stream, r.stream)
		}
		r.last, r.stream = rec.Sequence, rec.Stream
		return rec, true, nil
	}
}

func (r *logReader) close() error { return r.f.Close() }

// fileView is a file log opened for reading only, as an events.Follower.
// A Stream over it serves the records read so far; grow reads the ones
// appended since (view follows the file with it, see liveView).
type fileView struct {
	mu   sync.Mutex
	r    *logReader
	recs []events.Record
	err  error // the first damage found; reading stops there
}

// grow reads the records appended since the last call and returns how
// many have been read in all, or the damage that stopped reading.
func (f *fileView) grow() (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.err == nil {
		rec, ok, err := f.r.next()
		if err != nil {
			f.err = err
		}
		if !ok {
			break
		}
		f.recs = append(f.recs, rec)
	}
	return int64(len(f.recs)), f.err
}

func (f *fileView) Append(rec events.Record) error {
	return &events.Error{Op: "append", Seq: rec.Sequence, Detail: "a viewed log is read-only", Err: events.ErrInvalid}
}

// Last is the number of records read so far.
func (f *fileView) Last() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return int64(len(f.recs))
}

// Records yields the records read so far after after.
func (f *fileView) Records(after int64) iter.Seq2[events.Record, error] {
	return func(yield func(events.Record, error) bool) {
		f.mu.Lock()
		recs := f.recs[min(max(after, 0), int64(len(f.recs))):]
		f.mu.Unlock()
		for _, rec := range recs {
			if !yield(rec, nil) {
				return
			}
		}
	}
}

// Wait polls the file until it holds a record after after.
func (f *fileView) Wait(ctx context.Context, after int64) error {
	for {
		n, err := f.grow()
		switch {
		case err != nil:
			return err
		case n > after:
			return nil
		}
		if err := poll(ctx); err != nil {
			return err
		}
	}
}

// session is the session of the records read; "" before the first.
func (f *fileView) session() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.r.stream
}

// Close does nothing: view closes the file itself when it is done, after
// the streams it made over it (a Stream closes its log).
func (f *fileView) Close() error { return nil }

var _ events.Follower = (*fileView)(nil)
