package events

import (
	"path/filepath"
	"testing"
	"time"
)

func TestAnOptionGivenToTheWrongConstructorIsAnError(t *testing.T) {
	if _, err := NewStream(testSession, NewMemoryLog(), SyncEvery(1, 0)); err == nil {
		t.Error("NewStream accepted SyncEvery, an option of OpenFile")
	}
	if l, err := OpenFile(filepath.Join(t.TempDir(), "log"), WithClock(time.Now)); err == nil {
		l.Close()
		t.Error("OpenFile accepted WithClock, an option of NewStream")
	}
	if _, err := NewStream(testSession, NewMemoryLog(), WithBuffer(0), nil); err == nil {
		t.Error("NewStream accepted WithBuffer(0)")
	}
}
