package events_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/enforcer-go/enforcer/events"
)

// An idle session costs little memory: a stream's buffer of recent
// notifications grows with use up to its bound (WithBuffer, 1024 by
// default), so a stream that has recorded one short turn has cost at most
// 16 KiB, its memory log's records included.
func TestAnIdleStreamCostsAtMost16KiB(t *testing.T) {
	const n = 200
	streams := make([]*events.Stream, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range streams {
		s, err := events.NewStream(fmt.Sprintf("session-%d", i), events.NewMemoryLog())
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range []events.Event{events.TurnStarted{TurnID: "t1"}, events.TurnCompleted{TurnID: "t1", Terminal: "completed"}} {
			if _, err := s.Append(ev); err != nil {
				t.Fatal(err)
			}
		}
		streams[i] = s
	}
	runtime.ReadMemStats(&after)
	for _, s := range streams {
		s.Close()
	}
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 16<<10 {
		t.Errorf("an idle stream allocated %d bytes, want at most %d", per, 16<<10)
	} else {
		t.Logf("an idle stream allocated %d bytes", per)
	}
}
