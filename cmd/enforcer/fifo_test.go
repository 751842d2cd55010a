//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO nobody writes to blocks its reader's open forever, so every
// command refuses one at once instead of hanging.
func TestEveryCommandRefusesAFIFOInsteadOfHanging(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	schemaPath := write(t, "schema.json", citySchema)
	answerPath := write(t, "answer.txt", `{"city":"Oslo"}`)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"check with a FIFO as the answer", []string{"check", schemaPath, fifo}, "is a FIFO"},
		{"check with a FIFO as the schema", []string{"check", fifo, answerPath}, "is a FIFO"},
		{"schema of a FIFO", []string{"schema", fifo}, "is a FIFO"},
		{"tail of a FIFO", []string{"tail", fifo}, "not a regular file"},
		{"view of a FIFO", []string{"view", fifo}, "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			type result struct {
				code           int
				stdout, stderr string
			}
			done := make(chan result, 1)
			go func() {
				code, stdout, stderr := runCmd(t.Context(), "", tt.args...)
				done <- result{code, stdout, stderr}
			}()
			select {
			case r := <-done:
				wantOneLineError(t, r.code, r.stdout, r.stderr, tt.want)
			case <-time.After(10 * time.Second):
				// Release the blocked open (a writer's open does not
				// block once a reader waits) so the goroutine ends.
				if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close()
				}
				<-done
				t.Fatalf("enforcer %v still ran after 10s: it opened the FIFO and waited for a writer", tt.args)
			}
		})
	}
}
