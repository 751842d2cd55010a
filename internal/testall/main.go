// Command testall is the repository's test command. It runs the tests of
// every module — the core, the provider adapters, the framework
// integrations, the JetStream log, traces, the test-only modules, the
// examples — and the Go blocks of the README and the guides, in one go
// command, with every vet check:
//
//	go run ./internal/testall [go test flags]   # -race: with the race detector
//
// It writes a workspace of every module all.work lists, and of a module
// made of the Markdown files' Go blocks (internal/readme), into a
// temporary folder, and runs, with GOWORK set to it,
//
//	go test -vet=all -tags=enforcer_workspace [go test flags] <every package>
//
// One build graph compiles and vets each package once, on every core,
// and no test runs another module's tests, so no test's -timeout counts
// a cold machine's downloads and compiles. When it returns — passing,
// failing or interrupted — the folder is removed and the go command's
// process group has ended. It exits non-zero when go test fails (under
// go run, with status 1).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/enforcer-go/enforcer/internal/gowork"
	"github.com/enforcer-go/enforcer/internal/proc"
	"github.com/enforcer-go/enforcer/internal/readme"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := 2
	goCmd, err := gowork.GoTool()
	if err == nil {
		code, err = run(ctx, goCmd, ".", os.Args[1:], os.Stdout, os.Stderr)
	}
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testall:", err)
	}
	os.Exit(code)
}

// run runs go test with args over every package of the workspace of the
// repository that holds dir. It returns the go command's exit status,
// and an error when it could not run it or was stopped.
func run(ctx context.Context, goCmd, dir string, args []string, stdout, stderr io.Writer) (int, error) {
	if err := context.Cause(ctx); err != nil {
		return 2, err
	}
	root, err := gowork.Root(dir)
	if err != nil {
		return 2, err
	}
	work, err := gowork.Read(goCmd, root)
	if err != nil {
		return 2, err
	}
	tmp, err := os.MkdirTemp("", "enforcer-testall-")
	if err != nil {
		return 2, err
	}
	if tmp, err = filepath.Abs(tmp); err != nil { // GOWORK must be absolute
		return 2, err
	}
	defer os.RemoveAll(tmp)
	blocks := filepath.Join(tmp, readme.ModulePath)
	if err := os.Mkdir(blocks, 0o755); err != nil {
		return 2, err
	}
	if err := readme.WriteModule(root, blocks); err != nil {
		return 2, err
	}
	goWork, err := work.Write(tmp, blocks)
	if err != nil {
		return 2, err
	}
	pkgs := []string{readme.ModulePath + "/..."}
	for _, u := range work.Use {
		if u == "." {
			pkgs = append(pkgs, "./...")
		} else {
			pkgs = append(pkgs, "./"+u+"/...")
		}
	}
	// go test's own -p (one action a core): measured cold on 2 cores,
	// twice that ran the corpus tests beside the big compiles and took
	// 60 s longer. No -race by default: cold on 2 cores the command is
	// bound by compiling (about 800 s of processor time, the SDKs a
	// third of it, the race detector adding little), and the tests under
	// the detector take 333 s of processor time against 182 s without
	// it, the corpus tests sampled; CI adds it (.ci/run).
	// enforcer_workspace leaves out the tests a module can only build
	// alone (integrations/fantasy's, through a client built against an
	// older SDK than the workspace selects); CI runs them without it.
	cmd := proc.Command(ctx, goCmd, append(append([]string{"test", "-vet=all", "-tags=enforcer_workspace"}, args...), pkgs...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK="+goWork)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, new(*proc.StoppedError)):
		return 2, err
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return exit.ExitCode(), nil // the go command said what failed
	default:
		return 2, fmt.Errorf("go test: %w", err)
	}
	return 0, nil
}
