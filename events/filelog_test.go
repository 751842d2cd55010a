package events

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/internal/proc"
)

// withTicker replaces the interval ticker of SyncEvery and reports each
// pass of the background syncer on synced.
func withTicker(tick <-chan time.Time, synced chan<- struct{}) FileOption {
	return fileOption(func(o *fileOptions) {
		o.tick = tick
		o.synced = func() { synced <- struct{}{} }
	})
}

func readAll(t *testing.T, l Log) []Record {
	t.Helper()
	var recs []Record
	for r, err := range l.Records(0) {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs
}

func TestFileLogKeepsEveryRecordAcrossReopen(t *testing.T) {
	path, _ := writeLog(t)
	s := openStream(t, path)
	want := len(transcript())
	if got := len(readAll(t, s.log)); got != want {
		t.Fatalf("reopened log holds %d records, want %d", got, want)
	}
	n, err := s.Append(TurnStarted{TurnID: "t9"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := seqOf(t, n), int64(want+1); got != want {
		t.Errorf("cursor after reopen names record %d, want %d", got, want)
	}
	// A turn that ended before the restart still resolves a wait.
	if got, err := s.WaitTurn(context.Background(), "t2"); err != nil || got.Method != "turn/completed" {
		t.Errorf("WaitTurn(t2) = %v, %v; want its turn/completed", got.Method, err)
	}
}

func TestOpenFileDropsATornLastLine(t *testing.T) {
	path, lines := writeLog(t)
	orig, _ := os.ReadFile(path)
	last := lines[len(lines)-1]
	keep := orig[:len(orig)-len(last)] // every line but the last
	tests := []struct {
		name     string
		content  []byte
		wantRecs int
	}{
		{"a last line cut in the middle", append(bytes.Clone(keep), last[:len(last)/2]...), len(lines) - 1},
		{"a last line missing only its newline", append(bytes.Clone(keep), last[:len(last)-1]...), len(lines) - 1},
		{"a last line cut after one byte", append(bytes.Clone(keep), last[:1]...), len(lines) - 1},
		{"a partial garbage line after complete ones", append(bytes.Clone(orig), `{"seq":12,"id":"x`...), len(lines)},
		{"zeros after complete lines", append(bytes.Clone(orig), make([]byte, 100)...), len(lines)},
		{"a complete garbage last line", append(bytes.Clone(orig), "\x00\x00garbage\n"...), len(lines)},
		{"an empty last line", append(bytes.Clone(orig), '\n'), len(lines)},
		{"an empty file", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "session.ndjson")
			if err := os.WriteFile(p, tt.content, 0o644); err != nil {
				t.Fatal(err)
			}
			s := openStream(t, p)
			recs := readAll(t, s.log)
			if got := len(recs); got != tt.wantRecs {
				t.Fatalf("got %d records, want %d", got, tt.wantRecs)
			}
			for i, r := range recs {
				if r.Sequence != int64(i+1) {
					t.Fatalf("record %d has sequence %d", i+1, r.Sequence)
				}
			}
			b, _ := os.ReadFile(p)
			if want := bytes.Join(lines[:tt.wantRecs], nil); !bytes.Equal(b, want) {
				t.Errorf("file after reopen is not exactly the complete records:\n%q", b)
			}
			n, err := s.Append(TurnStarted{TurnID: "next"})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := seqOf(t, n), int64(tt.wantRecs+1); got != want {
				t.Errorf("next cursor names record %d, want %d", got, want)
			}
			s.Close()
			l, err := OpenFile(p)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if got, want := l.Last(), int64(tt.wantRecs+1); got != want {
				t.Errorf("after a second reopen Last() = %d, want %d", got, want)
			}
		})
	}
}

func TestOpenFileRefusesDamageBeforeTheLastLine(t *testing.T) {
	_, lines := writeLog(t)
	tests := []struct {
		name    string
		content [][]byte
	}{
		{"a garbage line in the middle", [][]byte{lines[0], []byte("garbage\n"), lines[1]}},
		{"a torn line in the middle", [][]byte{lines[0], lines[1][:10], []byte("\n"), lines[2]}},
		{"a missing record", [][]byte{lines[0], lines[2]}},
		{"a repeated record", [][]byte{lines[0], lines[1], lines[1]}},
		{"a record out of sequence at the end", [][]byte{lines[0], lines[2]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "session.ndjson")
			content := bytes.Join(tt.content, nil)
			if err := os.WriteFile(p, content, 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := OpenFile(p)
			if err == nil {
				l.Close()
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("OpenFile = %v, want ErrCorrupt", err)
			}
			if b, _ := os.ReadFile(p); !bytes.Equal(b, content) {
				t.Errorf("OpenFile changed a corrupt file")
			}
		})
	}
}

// No crash leaves a line that is JSON but no record — a torn write of a
// record is not JSON — so such a line is damage even last, and a file
// that is not a log is refused naming its first line, never taken for a
// log with a torn last line (and truncated by OpenFile).
func TestLogFilesRefuseALineThatIsJSONButNoRecord(t *testing.T) {
	_, lines := writeLog(t)
	tests := []struct {
		name     string
		content  [][]byte
		wantLine int64
	}{
		{"a JSON document", [][]byte{[]byte(`{"a":1}` + "\n")}, 1},
		{"a record of an unknown kind", [][]byte{[]byte(`{"seq":1,"kind":"bogus"}` + "\n")}, 1},
		{"a JSON array", [][]byte{[]byte("[1,2]\n")}, 1},
		{"a JSON document after a record", [][]byte{lines[0], []byte(`{"a":1}` + "\n")}, 2},
		{"a record of an unknown kind after two records", [][]byte{lines[0], lines[1], []byte(`{"seq":3,"id":"x","stream":"s","atMs":0,"kind":"bogus","data":{}}` + "\n")}, 3},
	}
	opens := []struct {
		name string
		open func(string) (Log, error)
	}{
		{"OpenFile", func(p string) (Log, error) { return OpenFile(p) }},
		{"FollowFile", func(p string) (Log, error) { return FollowFile(p) }},
	}
	for _, tt := range tests {
		for _, o := range opens {
			t.Run(o.name+" refuses "+tt.name, func(t *testing.T) {
				p := filepath.Join(t.TempDir(), "session.ndjson")
				content := bytes.Join(tt.content, nil)
				if err := os.WriteFile(p, content, 0o644); err != nil {
					t.Fatal(err)
				}
				l, err := o.open(p)
				if err == nil {
					l.Close()
				}
				var e *Error
				if !errors.Is(err, ErrCorrupt) || !errors.As(err, &e) {
					t.Fatalf("%s = %v, want an *Error matching ErrCorrupt", o.name, err)
				}
				if got, want := e.Seq, tt.wantLine; got != want {
					t.Errorf("the error names record (line) %d, want %d", got, want)
				}
				if b, _ := os.ReadFile(p); !bytes.Equal(b, content) {
					t.Errorf("%s changed the file to %q", o.name, b)
				}
			})
		}
	}
}

func TestNewStreamRefusesAnotherSessionsLog(t *testing.T) {
	path, _ := writeLog(t)
	l, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := NewStream("another", l); !errors.Is(err, ErrCorrupt) {
		t.Errorf("NewStream = %v, want ErrCorrupt", err)
	}
}

func TestSyncEveryBatchesFsyncs(t *testing.T) {
	tick := make(chan time.Time)
	synced := make(chan struct{})
	path := filepath.Join(t.TempDir(), "session.ndjson")
	s := openStream(t, path, SyncEvery(3, time.Hour), withTicker(tick, synced))
	fl := s.log.(*fileLog)
	syncs := func() (int, int) {
		fl.mu.Lock()
		defer fl.mu.Unlock()
		return fl.syncs, fl.pending
	}
	appendN := func(n int) {
		for range n {
			if _, err := s.Append(TurnStarted{TurnID: "t"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	appendN(2)
	if n, p := syncs(); n != 0 || p != 2 {
		t.Fatalf("after 2 appends: %d fsyncs, %d pending; want 0, 2", n, p)
	}
	appendN(1)
	if n, p := syncs(); n != 1 || p != 0 {
		t.Fatalf("after 3 appends: %d fsyncs, %d pending; want 1, 0", n, p)
	}
	appendN(1)
	tick <- time.Time{}
	<-synced
	if n, p := syncs(); n != 2 || p != 0 {
		t.Fatalf("after a tick with 1 pending: %d fsyncs, %d pending; want 2, 0", n, p)
	}
	tick <- time.Time{}
	<-synced
	if n, _ := syncs(); n != 2 {
		t.Fatalf("a tick with nothing pending fsynced: %d fsyncs, want 2", n)
	}
	appendN(1)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n, p := syncs(); n != 3 || p != 0 {
		t.Errorf("after Close: %d fsyncs, %d pending; want 3, 0", n, p)
	}
}

func TestSyncEveryByDefaultFsyncsEachAppend(t *testing.T) {
	s := openStream(t, filepath.Join(t.TempDir(), "session.ndjson"))
	for range 3 {
		if _, err := s.Append(TurnStarted{TurnID: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	fl := s.log.(*fileLog)
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if fl.syncs != 3 || fl.pending != 0 {
		t.Errorf("%d fsyncs, %d pending; want 3, 0", fl.syncs, fl.pending)
	}
}

func TestLogsRefuseOutOfSequenceAndClosedAppends(t *testing.T) {
	for name, open := range map[string]func(t *testing.T) Log{
		"memory": func(*testing.T) Log { return NewMemoryLog() },
		"file": func(t *testing.T) Log {
			l, err := OpenFile(filepath.Join(t.TempDir(), "x"))
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
	} {
		t.Run("the "+name+" log checks sequence numbers and closing", func(t *testing.T) {
			l := open(t)
			rec := Record{Stream: "s", Sequence: 2, ID: "a", Event: TurnStarted{TurnID: "t", CommandID: "t"}}
			if err := l.Append(rec); !errors.Is(err, ErrCorrupt) {
				t.Errorf("appending record 2 first = %v, want ErrCorrupt", err)
			}
			rec.Sequence = 1
			if err := l.Append(rec); err != nil {
				t.Fatal(err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			rec.Sequence = 2
			if err := l.Append(rec); !errors.Is(err, ErrClosed) {
				t.Errorf("Append after Close = %v, want ErrClosed", err)
			}
			for _, err := range l.Records(0) {
				if !errors.Is(err, ErrClosed) {
					t.Errorf("Records after Close = %v, want ErrClosed", err)
				}
			}
		})
	}
}

func TestFileLogReadsWhileAppending(t *testing.T) {
	s := openStream(t, filepath.Join(t.TempDir(), "session.ndjson"), SyncEvery(64, 0))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 300 {
			if _, err := s.Append(TurnStarted{TurnID: "t"}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range 50 {
		var want int64 = 1
		for r, err := range s.log.Records(0) {
			if err != nil {
				t.Fatal(err)
			}
			if r.Sequence != want {
				t.Fatalf("read sequence %d, want %d", r.Sequence, want)
			}
			want++
		}
	}
	wg.Wait()
}

// A child process appends and reports each acknowledged record; the parent
// kills it mid-stream. Every acknowledged record must be there on reopen.
func TestFileLogKeepsAcknowledgedRecordsWhenTheProcessIsKilled(t *testing.T) {
	if path := os.Getenv("EVENTS_CRASH_CHILD"); path != "" {
		crashChild(path)
		return
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	path := filepath.Join(t.TempDir(), "session.ndjson")
	cmd := proc.ForTest(t, os.Args[0], "-test.run=^TestFileLogKeepsAcknowledgedRecordsWhenTheProcessIsKilled$")
	cmd.Env = append(os.Environ(), "EVENTS_CRASH_CHILD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := int64(0)
	sc := bufio.NewScanner(out)
	for acked < 50 && sc.Scan() {
		if n, ok := strings.CutPrefix(sc.Text(), "ack "); ok {
			acked, _ = strconv.ParseInt(n, 10, 64)
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if acked < 50 {
		t.Fatalf("the child acknowledged only %d records", acked)
	}
	s := openStream(t, path)
	if got := s.log.Last(); got < acked {
		t.Fatalf("after the kill the log holds %d records; %d were acknowledged", got, acked)
	}
	readAll(t, s.log)
	if _, err := s.Append(TurnStarted{TurnID: "after"}); err != nil {
		t.Fatal(err)
	}
}

func crashChild(path string) {
	l, err := OpenFile(path)
	if err != nil {
		os.Exit(2)
	}
	s, err := NewStream(testSession, l)
	if err != nil {
		os.Exit(2)
	}
	for i := range 1_000_000 { // bounded, in case the parent never kills us
		n, err := s.Append(TurnRetry{TurnID: "t", Attempt: 1, NextAttempt: 2, MaxAttempts: 3, Reason: strings.Repeat("x", i%150)})
		if err != nil {
			os.Exit(2)
		}
		seq, _ := parseCursor(testSession, n.Cursor())
		fmt.Fprintf(os.Stdout, "ack %d\n", seq)
	}
	os.Exit(0)
}

// A file changed in size under its writer no longer holds what the log
// acknowledged where the log thinks it is: logrotate's copytruncate cuts
// it to nothing, another program may append to it. The next append is
// refused, writes nothing, and closes the stream as a failed write does.
func TestAFileLogWhoseFileChangedSizeUnderItRefusesToAppend(t *testing.T) {
	tests := []struct {
		name   string
		change func(path string) error
	}{
		{"copied and truncated (logrotate's copytruncate)", func(path string) error {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if err := os.WriteFile(path+".1", b, 0o644); err != nil {
				return err
			}
			return os.Truncate(path, 0)
		}},
		{"cut to its first record", func(path string) error {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.Truncate(path, int64(bytes.IndexByte(b, '\n')+1))
		}},
		{"appended to by another program", func(path string) error {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteString("not a record\n")
			return err
		}},
	}
	for _, tt := range tests {
		t.Run("a log whose file was "+tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "session.ndjson")
			s := openStream(t, path)
			for _, id := range []string{"t1", "t2", "t3"} {
				if _, err := s.Append(TurnStarted{TurnID: id}); err != nil {
					t.Fatal(err)
				}
			}
			if err := tt.change(path); err != nil {
				t.Fatal(err)
			}
			changed, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Append(TurnStarted{TurnID: "t4"})
			var e *Error
			if !errors.Is(err, ErrClosed) || !errors.As(err, &e) {
				t.Fatalf("Append = %v, want an *Error matching ErrClosed", err)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, changed) {
				t.Errorf("the refused append wrote to the file: %q, want %q", after, changed)
			}
			if got := s.log.Last(); got != 3 {
				t.Errorf("Last() = %d, want 3", got)
			}
			if _, err := s.WaitTurn(t.Context(), "t4"); !errors.Is(err, ErrClosed) {
				t.Errorf("WaitTurn after the refusal = %v, want ErrClosed: the stream closes as on a failed write", err)
			}
		})
	}
}
