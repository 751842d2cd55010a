package modules_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// raceFlag is ["-race"] when this test runs with the race detector, so
// the other modules' tests run with it too.
var raceFlag []string

// TestEveryWorkspaceModule runs `go test ./...` in every module that
// go.work lists besides the root one.
func TestEveryWorkspaceModule(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the other modules' tests; skipped with -short")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goCmd); err != nil {
		goCmd = "go"
	}
	// Without the workspace (no go.work, or GOWORK=off to build the core
	// module alone with an older Go) the other modules are not in play.
	env := exec.CommandContext(t.Context(), goCmd, "env", "GOWORK")
	env.Dir = root
	gowork, err := env.Output()
	if work := strings.TrimSpace(string(gowork)); err != nil || work == "" || work == "off" {
		t.Skipf("no workspace (go env GOWORK = %q, %v): only the core module is tested", work, err)
	}
	cmd := exec.CommandContext(t.Context(), goCmd, "work", "edit", "-json")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go work edit -json: %v", err)
	}
	var work struct {
		Use []struct{ DiskPath string }
	}
	if err := json.Unmarshal(out, &work); err != nil {
		t.Fatalf("reading go.work: %v", err)
	}
	ran := 0
	for _, u := range work.Use {
		if filepath.Clean(u.DiskPath) == "." {
			continue // the root module: the outer `go test ./...` runs it
		}
		ran++
		dir := filepath.Join(root, u.DiskPath)
		touchAll(t, dir)
		t.Run(filepath.ToSlash(filepath.Clean(u.DiskPath)), func(t *testing.T) {
			args := append([]string{"test"}, raceFlag...)
			cmd := exec.CommandContext(t.Context(), goCmd, append(args, "./...")...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			t.Logf("go %v in %s:\n%s", cmd.Args[1:], u.DiskPath, out)
			if err != nil {
				t.Errorf("the tests of module %s failed: %v", u.DiskPath, err)
			}
		})
	}
	if ran == 0 {
		t.Error("go.work lists no module besides the root")
	}
}

// touchAll stats every file of a module. go test caches a passing result
// keyed on the files the test looked at; the module's tests run in a child
// process it cannot see, so without this a change there would be hidden
// behind a cached pass.
func touchAll(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		_, err = os.Stat(path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
