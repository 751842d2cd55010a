package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/internal/proc"
)

// TestRunStoppedWhileItsChildrenRunLeavesNoProcessAndNoFolder: run,
// stopped while the go command and a child of its run, ends every
// process and removes the workspace with the README's module.
func TestRunStoppedWhileItsChildrenRunLeavesNoProcessAndNoFolder(t *testing.T) {
	log, tmp := fake(t, "hang")
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	var goPid, child int
	found := make(chan struct{})
	go func() { // stop run once the go command and its child both run
		defer close(found)
		defer cancel(errBudget)
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			data, _ := os.ReadFile(log)
			for line := range strings.Lines(string(data)) {
				if n, _ := fmt.Sscanf(line, "%d %d", &goPid, &child); n == 2 {
					return
				}
			}
		}
	}()
	code, err := run(ctx, os.Args[0], ".", nil, new(bytes.Buffer), new(bytes.Buffer))
	<-found
	if code == 0 || !errors.As(err, new(*proc.StoppedError)) || !errors.Is(err, errBudget) {
		t.Fatalf("run = %d, %v, want a non-zero status and a *proc.StoppedError for the budget", code, err)
	}
	if goPid == 0 || child == 0 {
		t.Fatal("the fake go command wrote no pids")
	}
	if err := proc.Gone(10*time.Second, goPid, goPid, child); err != nil {
		t.Error(err)
	}
	empty(t, tmp)
}
