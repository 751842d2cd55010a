// Package gowork is the home of the repository's workspace file,
// all.work: the go.work of every module in the repository. It is not
// named go.work, so that the go command finds no workspace by itself and
// `go run ./examples/quickstart` loads the core module alone, fetching
// nothing the core does not require (Go's advice: commit no go.work).
// The test command (internal/testall) points GOWORK at a copy of it, and
// an editor may too.
package gowork

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// File is the workspace file's name, at the repository's root.
const File = "all.work"

// Workspace is what all.work says.
type Workspace struct {
	Go   string   // its go line
	Root string   // the repository's root folder, absolute
	Use  []string // its use lines, slash-separated and relative to Root ("." is the core module)
}

// Root returns the repository's root: the folder holding [File], found
// from dir up.
func Root(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, File)); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("gowork: no %s in %s or a folder above it: not in the repository", File, dir)
		}
		d = parent
	}
}

// GoTool returns the go command of the toolchain that built this
// program, or else the one on PATH.
func GoTool() (string, error) {
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := exec.LookPath(p); err == nil {
		return p, nil
	}
	return exec.LookPath("go")
}

// Read returns the workspace of the repository whose root is root, as
// the go command reads it.
func Read(goCmd, root string) (Workspace, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return Workspace{}, err
	}
	cmd := exec.Command(goCmd, "work", "edit", "-json", File)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%v: %s", err, strings.TrimSpace(string(ee.Stderr)))
		}
		return Workspace{}, fmt.Errorf("gowork: go work edit -json %s: %w", File, err)
	}
	var work struct {
		Go  string
		Use []struct{ DiskPath string }
	}
	if err := json.Unmarshal(out, &work); err != nil {
		return Workspace{}, fmt.Errorf("gowork: reading %s: %w", File, err)
	}
	w := Workspace{Go: work.Go, Root: root}
	for _, u := range work.Use {
		w.Use = append(w.Use, filepath.ToSlash(filepath.Clean(u.DiskPath)))
	}
	return w, nil
}

// Write writes, in the folder dir, a go.work that uses every module of w
// and each folder of extra (absolute), and a copy of the repository's
// all.work.sum as its go.work.sum, so the checksums the workspace needs
// are not fetched again. It returns the go.work's path, for GOWORK.
func (w Workspace) Write(dir string, extra ...string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "go %s\n\nuse (\n", w.Go)
	for _, u := range w.Use {
		fmt.Fprintf(&b, "\t%q\n", filepath.Join(w.Root, filepath.FromSlash(u)))
	}
	for _, e := range extra {
		fmt.Fprintf(&b, "\t%q\n", e)
	}
	b.WriteString(")\n")
	path := filepath.Join(dir, "go.work")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return "", err
	}
	sum, err := os.ReadFile(filepath.Join(w.Root, File+".sum"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.work.sum"), sum, 0o644); err != nil {
		return "", err
	}
	return path, nil
}
