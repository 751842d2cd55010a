package logtest_test

import (
	"path/filepath"
	"testing"

	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/events/logtest"
)

// A Log implementation's test runs the shared contract; the file log's
// test is this one.
func ExampleRun() {
	_ = func(t *testing.T) { // func TestFileLogKeepsTheLogContract(t *testing.T)
		dir := t.TempDir()
		logtest.Run(t, logtest.Opener{
			Open: func(t *testing.T, name string) events.Log {
				l, err := events.OpenFile(filepath.Join(dir, name+".ndjson"))
				if err != nil {
					t.Fatal(err)
				}
				return l
			},
			Durable: true, // a reopened file holds its records
		})
	}
}
