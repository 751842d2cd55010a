// Package gowork finds the go command and reads the repository's
// go.work, for the tests that run the go tool on the workspace's other
// modules (internal/modules) or on the README's code (internal/readme).
package gowork

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Workspace is what go.work says.
type Workspace struct {
	Go   string   // its go line
	Root string   // the repository's root folder, absolute
	Use  []string // its use lines, relative to Root ("." is the core module)
}

// GoTool returns the go command that runs this test, or the one on PATH.
// It skips t when there is none.
func GoTool(t testing.TB) string {
	t.Helper()
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := exec.LookPath(p); err == nil {
		return p
	}
	p, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	return p
}

// Read returns the workspace of the repository whose root is root. It
// skips t when the workspace is off (no go.work, or GOWORK=off to build
// the core module alone with an older Go): the other modules are not in
// play then.
func Read(t testing.TB, goCmd, root string) Workspace {
	t.Helper()
	root, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	env := exec.CommandContext(t.Context(), goCmd, "env", "GOWORK")
	env.Dir = root
	gowork, err := env.Output()
	if work := strings.TrimSpace(string(gowork)); err != nil || work == "" || work == "off" {
		t.Skipf("no workspace (go env GOWORK = %q, %v): only the core module is in play", work, err)
	}
	cmd := exec.CommandContext(t.Context(), goCmd, "work", "edit", "-json")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go work edit -json: %v", err)
	}
	var work struct {
		Go  string
		Use []struct{ DiskPath string }
	}
	if err := json.Unmarshal(out, &work); err != nil {
		t.Fatalf("reading go.work: %v", err)
	}
	w := Workspace{Go: work.Go, Root: root}
	for _, u := range work.Use {
		w.Use = append(w.Use, filepath.Clean(u.DiskPath))
	}
	return w
}
