package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/internal/readme"
)

// The test binary stands in for the go command when FAKE_GO names a
// file: it answers `go work edit -json` as the real one would, and for
// anything else appends its arguments and GOWORK's use list to that file
// as one JSON line, then does what FAKE_GO_DO says: "pass", "fail" (exit
// status 3), or "hang" (start a grandchild, write both pids, wait).
func TestMain(m *testing.M) {
	if log := os.Getenv("FAKE_GO"); log != "" {
		fakeGo(log, os.Args[1:])
		return
	}
	if os.Getenv("FAKE_GO_GRANDCHILD") != "" {
		waitForever()
	}
	os.Exit(m.Run())
}

type call struct {
	Args []string
	Use  []string // the go.work's use lines, as GOWORK names it
}

func fakeGo(log string, args []string) {
	if len(args) >= 2 && args[0] == "work" && args[1] == "edit" {
		real := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), args...)
		real.Stdout, real.Stderr, real.Env = os.Stdout, os.Stderr, os.Environ()
		if err := real.Run(); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	c := call{Args: args}
	if work, err := os.ReadFile(os.Getenv("GOWORK")); err == nil {
		for line := range strings.Lines(string(work)) {
			if line = strings.TrimSpace(line); strings.HasPrefix(line, `"`) {
				c.Use = append(c.Use, strings.Trim(line, `"`))
			}
		}
	}
	line, _ := json.Marshal(c)
	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		os.Exit(2)
	}
	fmt.Fprintln(f, string(line))
	switch os.Getenv("FAKE_GO_DO") {
	case "fail":
		if args[0] == "test" {
			os.Exit(3)
		}
	case "hang":
		gc := exec.Command(os.Args[0])
		gc.Env = append(os.Environ(), "FAKE_GO=", "FAKE_GO_GRANDCHILD=1")
		if err := gc.Start(); err != nil {
			os.Exit(2)
		}
		fmt.Fprintf(f, "%d %d\n", os.Getpid(), gc.Process.Pid)
		f.Close()
		waitForever()
	}
	f.Close()
	os.Exit(0)
}

// waitForever waits until interrupted.
func waitForever() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt)
	<-c
	os.Exit(4)
}

// fake sets the test binary up as the go command and TMPDIR to a folder
// of its own; it returns the log of calls and that folder.
func fake(t *testing.T, do string) (log, tmp string) {
	log = filepath.Join(t.TempDir(), "calls")
	tmp = t.TempDir()
	t.Setenv("FAKE_GO", log)
	t.Setenv("FAKE_GO_DO", do)
	t.Setenv("TMPDIR", tmp)
	return log, tmp
}

func calls(t *testing.T, log string) []call {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var cs []call
	for line := range strings.Lines(string(data)) {
		var c call
		if json.Unmarshal([]byte(line), &c) == nil {
			cs = append(cs, c)
		}
	}
	return cs
}

// empty fails the test unless dir holds nothing: run removes its folder.
func empty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) > 0 {
		t.Errorf("run left %v in the temporary folder", entries)
	}
}

func TestRunTestsAndVetsEveryModuleAndTheREADMEInOneGoCommand(t *testing.T) {
	log, tmp := fake(t, "pass")
	var out bytes.Buffer
	code, err := run(t.Context(), os.Args[0], ".", []string{"-short"}, &out, &out)
	if err != nil || code != 0 {
		t.Fatalf("run = %d, %v, want 0, nil\n%s", code, err, out.String())
	}
	cs := calls(t, log)
	if len(cs) != 1 {
		t.Fatalf("the go command was called %d times, want once: %+v", len(cs), cs)
	}
	test := cs[0]
	if got, want := test.Args[:4], []string{"test", "-vet=all", "-tags=enforcer_workspace", "-short"}; !slices.Equal(got, want) {
		t.Errorf("the call = go %v, want go test -vet=all -tags=enforcer_workspace -short …", test.Args)
	}
	pkgs := test.Args[4:]
	for _, want := range []string{readme.ModulePath + "/...", "./...", "./providers/openai/...", "./events/jetstream/...", "./internal/browsertest/..."} {
		if !slices.Contains(pkgs, want) {
			t.Errorf("the packages %v leave out %s", pkgs, want)
		}
	}
	if n := len(test.Use); n != len(pkgs) {
		t.Errorf("GOWORK uses %d folders for %d package patterns: %v", n, len(pkgs), test.Use)
	}
	if blocks := test.Use[len(test.Use)-1]; filepath.Base(blocks) != readme.ModulePath || !strings.HasPrefix(blocks, tmp) {
		t.Errorf("the last folder GOWORK uses is %s, want the README's module in %s", blocks, tmp)
	}
	empty(t, tmp)
}

func TestRunReturnsTheGoCommandsExitStatus(t *testing.T) {
	_, tmp := fake(t, "fail")
	code, err := run(t.Context(), os.Args[0], ".", nil, new(bytes.Buffer), new(bytes.Buffer))
	if err != nil || code != 3 {
		t.Errorf("run = %d, %v, want 3, nil: the status go test exited with", code, err)
	}
	empty(t, tmp)
}

var errBudget = errors.New("the budget is spent")

func TestRunWithItsBudgetSpentBeforeItStartsRunsNothing(t *testing.T) {
	log, tmp := fake(t, "pass")
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(errBudget)
	code, err := run(ctx, os.Args[0], ".", nil, new(bytes.Buffer), new(bytes.Buffer))
	if code == 0 || !errors.Is(err, errBudget) {
		t.Errorf("run = %d, %v, want a non-zero status and the budget's cause", code, err)
	}
	if _, err := os.Stat(log); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the go command ran the tests (%v)", err)
	}
	empty(t, tmp)
}

// TestTheREADMEShowsThisCommandAndCIRunsIt: the README's first commands
// name this program as the test command, and .ci/run runs it as written.
func TestTheREADMEShowsThisCommandAndCIRunsIt(t *testing.T) {
	const command = "go run ./internal/testall"
	blocks, err := readme.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var first readme.Block
	for _, b := range blocks {
		if b.Info == "sh" {
			first = b
			break
		}
	}
	if !slices.ContainsFunc(strings.Split(first.Text, "\n"), func(line string) bool {
		return strings.HasPrefix(line, command+" ")
	}) {
		t.Errorf("the README's first sh block does not show %q:\n%s", command, first.Text)
	}
	ci, err := os.ReadFile(filepath.Join("..", "..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(string(ci), "\n"), command) {
		t.Errorf(".ci/run has no line %q", command)
	}
}
