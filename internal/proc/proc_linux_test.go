package proc_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/internal/proc"
)

// The test binary plays the processes of a tree when PROC_TEST_ROLE says
// which: "parent" starts a grandchild, prints both pids and waits for a
// signal that never comes (or exits at once with PROC_TEST_EXIT set);
// "grandchild" only waits.
func TestMain(m *testing.M) {
	switch os.Getenv("PROC_TEST_ROLE") {
	case "parent":
		gc := exec.Command(os.Args[0]) // in the parent's group
		gc.Env = append(os.Environ(), "PROC_TEST_ROLE=grandchild")
		if err := gc.Start(); err != nil {
			fmt.Println("start:", err)
			os.Exit(2)
		}
		fmt.Println(os.Getpid(), gc.Process.Pid)
		if os.Getenv("PROC_TEST_EXIT") != "" {
			os.Exit(0)
		}
		waitForever()
	case "grandchild":
		waitForever()
	}
	os.Exit(m.Run())
}

func waitForever() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR2)
	<-c
	os.Exit(3)
}

// tree starts the parent and returns the pids it printed.
func tree(t *testing.T, cmd *proc.Cmd, exit bool) (parent, grandchild int) {
	t.Helper()
	cmd.Env = append(os.Environ(), "PROC_TEST_ROLE=parent")
	if exit {
		cmd.Env = append(cmd.Env, "PROC_TEST_EXIT=1")
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the pids: %v", err)
	}
	f := strings.Fields(line)
	if len(f) != 2 {
		t.Fatalf("the parent printed %q, want two pids", line)
	}
	parent, _ = strconv.Atoi(f[0])
	grandchild, _ = strconv.Atoi(f[1])
	return parent, grandchild
}

// gone fails the test if a process of the group pgid, or one of pids,
// still runs ten seconds on.
func gone(t *testing.T, pgid int, pids ...int) {
	t.Helper()
	if err := proc.Gone(10*time.Second, pgid, pids...); err != nil {
		t.Fatal(err)
	}
}

func TestACommandStoppedByItsBudgetLeavesNoProcess(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	cmd := proc.Command(ctx, os.Args[0])
	parent, grandchild := tree(t, cmd, false)
	err := cmd.Wait()
	var stopped *proc.StoppedError
	if !errors.As(err, &stopped) {
		t.Fatalf("Wait = %v, want a *proc.StoppedError", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait = %v, want it to wrap context.DeadlineExceeded", err)
	}
	if stopped.Ran <= 0 {
		t.Errorf("it says it ran %s", stopped.Ran)
	}
	gone(t, parent, parent, grandchild)
}

func TestWhatAnExitedCommandLeftBehindIsKilled(t *testing.T) {
	cmd := proc.Command(t.Context(), os.Args[0])
	parent, grandchild := tree(t, cmd, true)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("Wait = %v, want nil: the parent exited 0", err)
	}
	gone(t, parent, parent, grandchild)
}

func TestCombinedOutputReturnsWhenTheChildExitsThoughWhatItLeftHoldsItsOutput(t *testing.T) {
	cmd := proc.Command(t.Context(), os.Args[0])
	cmd.Env = append(os.Environ(), "PROC_TEST_ROLE=parent", "PROC_TEST_EXIT=1")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("CombinedOutput = %v, want nil: the parent exited 0\n%s", err, out)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("CombinedOutput took %s: it waited for the grandchild to close the output", d)
	}
	var parent, grandchild int
	if _, err := fmt.Sscanf(string(out), "%d %d", &parent, &grandchild); err != nil {
		t.Fatalf("the parent printed %q: %v", out, err)
	}
	gone(t, parent, parent, grandchild)
}

func TestCombinedOutputOfAStoppedCommandEndsWithWhatItPrinted(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	cmd := proc.Command(ctx, "sh", "-c", "echo compiling the world; exec sleep 60")
	_, err := cmd.CombinedOutput()
	var stopped *proc.StoppedError
	if !errors.As(err, &stopped) {
		t.Fatalf("CombinedOutput = %v, want a *proc.StoppedError", err)
	}
	if got, want := stopped.Last, "compiling the world"; got != want {
		t.Errorf("Last = %q, want %q", got, want)
	}
	gone(t, cmd.Process.Pid, cmd.Process.Pid)
}

func TestForTestStopsTheChildWhenTheTestEnds(t *testing.T) {
	var parent, grandchild int
	t.Run("a test that leaves its child running", func(t *testing.T) {
		parent, grandchild = tree(t, proc.ForTest(t, os.Args[0]), false)
	})
	gone(t, parent, parent, grandchild)
}
