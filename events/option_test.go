package events

import (
	"path/filepath"
	"testing"
	"time"
)

// Each constructor has its own option type, so an option given to the
// wrong one is a compile error, not a run-time one.
func TestOptionsOfOneConstructorAreNotOptionsOfTheOther(t *testing.T) {
	if _, ok := any(SyncEvery(1, 0)).(Option); ok {
		t.Error("SyncEvery, an option of OpenFile, is an Option of NewStream")
	}
	for _, o := range []Option{WithClock(time.Now), WithBuffer(1), WithKeepAlive(time.Second)} {
		if _, ok := any(o).(FileOption); ok {
			t.Errorf("%T, an option of NewStream, is a FileOption of OpenFile", o)
		}
	}
}

func TestAnOptionWithABadValueIsAnError(t *testing.T) {
	for name, opt := range map[string]Option{"WithBuffer(0)": WithBuffer(0), "WithClock(nil)": WithClock(nil), "WithKeepAlive(0)": WithKeepAlive(0)} {
		if _, err := NewStream(testSession, NewMemoryLog(), opt, nil); err == nil {
			t.Errorf("NewStream accepted %s", name)
		}
	}
	for name, opt := range map[string]FileOption{"SyncEvery(0, 0)": SyncEvery(0, 0), "SyncEvery(1, -1s)": SyncEvery(1, -time.Second), "PollEvery(0)": PollEvery(0)} {
		if l, err := OpenFile(filepath.Join(t.TempDir(), "log"), opt, nil); err == nil {
			l.Close()
			t.Errorf("OpenFile accepted %s", name)
		}
	}
}

func TestFollowFileRefusesABadOptionAndAMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	if l, err := FollowFile(path); err == nil {
		l.Close()
		t.Error("FollowFile opened a file that does not exist")
	}
	l, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if r, err := FollowFile(path, PollEvery(time.Microsecond)); err == nil {
		r.Close()
		t.Error("FollowFile accepted PollEvery(1µs)")
	}
}
