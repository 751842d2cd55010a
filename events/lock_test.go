package events

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
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
	cmd := exec.Command(os.Args[0], "-test.run=^TestASecondProcessCannotOpenAFileLogInUse$")
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
