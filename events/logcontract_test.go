package events_test

import (
	"path/filepath"
	"testing"

	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/events/logtest"
)

func TestMemoryLogKeepsTheLogContract(t *testing.T) {
	logtest.Run(t, logtest.Opener{
		Open: func(*testing.T, string) events.Log { return events.NewMemoryLog() },
	})
}

func TestFileLogKeepsTheLogContract(t *testing.T) {
	dir := t.TempDir()
	logtest.Run(t, logtest.Opener{
		Open: func(t *testing.T, name string) events.Log {
			l, err := events.OpenFile(filepath.Join(dir, name+".ndjson"))
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
		Durable: true,
		Follow: func(t *testing.T, name string) events.Follower {
			l, err := events.FollowFile(filepath.Join(dir, name+".ndjson"))
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
	})
}
