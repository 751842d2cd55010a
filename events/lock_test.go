package events

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/enforcer-go/enforcer/internal/proc"
)

func skipWithoutFlock(t *testing.T) {
	t.Helper()
	switch runtime.GOOS {
	case "darwin", "dragonfly", "freebsd", "linux", "netbsd", "openbsd":
	default:
		t.Skip("no file lock on " + runtime.GOOS)
	}
}

func TestASecondWriterOfAFileLogIsRefusedAndWritesNothing(t *testing.T) {
	skipWithoutFlock(t)
	path, _ := writeLog(t)
	first := openStream(t, path)
	if _, err := first.Append(TurnStarted{TurnID: "mine"}); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := OpenFile(path)
	if err == nil {
		l.Close()
		t.Fatal("a second OpenFile of an open log succeeded")
	}
	var e *Error
	if !errors.Is(err, ErrLocked) || !errors.As(err, &e) {
		t.Fatalf("OpenFile = %v, want an *Error matching ErrLocked", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Error("the refused open changed the file")
	}
	if _, err := first.Append(TurnStarted{TurnID: "still mine"}); err != nil {
		t.Errorf("the first writer after the refusal: %v", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	l, err = OpenFile(path) // the lock goes with Close
	if err != nil {
		t.Fatalf("OpenFile after the first writer closed: %v", err)
	}
	l.Close()
}

// A second process opening a log this process holds gets ErrLocked (the
// child reports by its exit status).
func TestASecondProcessCannotOpenAFileLogInUse(t *testing.T) {
	if path := os.Getenv("EVENTS_LOCK_CHILD"); path != "" {
		l, err := OpenFile(path)
		switch {
		case errors.Is(err, ErrLocked):
			os.Exit(3)
		case err == nil:
			l.Append(Record{Stream: testSession, Sequence: l.Last() + 1, ID: "intruder", Event: TurnStarted{TurnID: "x"}})
			l.Close()
			os.Exit(0)
		}
		os.Exit(2)
	}
	skipWithoutFlock(t)
	if testing.Short() {
		t.Skip("starts a child process")
	}
	path := filepath.Join(t.TempDir(), "session.ndjson")
	s := openStream(t, path)
	if _, err := s.Append(TurnStarted{TurnID: "t"}); err != nil {
		t.Fatal(err)
	}
	cmd := proc.ForTest(t, os.Args[0], "-test.run=^TestASecondProcessCannotOpenAFileLogInUse$")
	cmd.Env = append(os.Environ(), "EVENTS_LOCK_CHILD="+path)
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("child: %v, want exit status 3 (ErrLocked)", err)
	}
	if got := s.log.Last(); got != 1 {
		t.Errorf("log holds %d records, want 1", got)
	}
}

// The lock follows the file, not its name: once the file is renamed or
// deleted, a second OpenFile of the name locks a new file. The first log
// must then refuse to append, so that two writers never both acknowledge
// records meant for one path.
func TestAFileLogWhoseFileIsMovedRefusesToAppend(t *testing.T) {
	tests := []struct {
		name  string
		move  func(path string) error
		cause error // also wrapped, when not nil
	}{
		{"renamed, and another log opened at the name", func(path string) error {
			if err := os.Rename(path, path+".1"); err != nil {
				return err
			}
			l, err := OpenFile(path)
			if err != nil {
				return err
			}
			return l.Close()
		}, nil},
		{"replaced by a copy of the same size", func(path string) error {
			b, err := os.ReadFile(path)
			if err == nil {
				err = os.WriteFile(path+".copy", b, 0o644)
			}
			if err != nil {
				return err
			}
			return os.Rename(path+".copy", path)
		}, nil},
		{"renamed", func(path string) error { return os.Rename(path, path+".1") }, fs.ErrNotExist},
		{"deleted", os.Remove, fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run("a log whose file was "+tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "session.ndjson")
			s := openStream(t, path)
			if _, err := s.Append(TurnStarted{TurnID: "t1"}); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.move(path); err != nil {
				t.Skip("cannot move an open file here:", err)
			}
			_, err = s.Append(TurnCompleted{TurnID: "t1", Terminal: TerminalCompleted})
			var e *Error
			if !errors.Is(err, ErrClosed) || !errors.As(err, &e) || tt.cause != nil && !errors.Is(err, tt.cause) {
				t.Fatalf("Append = %v, want an *Error matching ErrClosed (and %v)", err, tt.cause)
			}
			if st, err := s.log.(*fileLog).f.Stat(); err != nil || st.Size() != fi.Size() {
				t.Errorf("the moved file grew from %d bytes to %v (%v)", fi.Size(), st.Size(), err)
			}
			if got := s.log.Last(); got != 1 {
				t.Errorf("Last() = %d, want 1", got)
			}
		})
	}
}

// A file replaced between OpenFile's open and its lock is not the log at
// the name: OpenFile opens the name again.
func TestOpenFileOpensTheNameAgainWhenItsFileIsReplacedBeforeTheLock(t *testing.T) {
	path, _ := writeLog(t)
	moved := false
	replace := fileOption(func(o *fileOptions) {
		o.opened = func() {
			if !moved {
				moved = true
				if err := os.Rename(path, path+".old"); err != nil {
					t.Error(err)
				}
			}
		}
	})
	l, err := OpenFile(path, replace)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got := l.Last(); got != 0 {
		t.Fatalf("OpenFile read %d records from the file moved away, want a new empty log", got)
	}
	if err := l.Append(Record{Stream: testSession, Sequence: 1, ID: "r1", Event: TurnStarted{TurnID: "t"}}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Contains(b, []byte(`"id":"r1"`)) {
		t.Errorf("the append did not reach the file at the name: %q, %v", b, err)
	}
}
