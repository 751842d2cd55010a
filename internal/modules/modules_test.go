package modules_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/enforcer-go/enforcer/internal/gowork"
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
	goCmd := gowork.GoTool(t)
	work := gowork.Read(t, goCmd, filepath.Join("..", ".."))
	root := work.Root
	ran := 0
	for _, use := range work.Use {
		if use == "." {
			continue // the root module: the outer `go test ./...` runs it
		}
		ran++
		dir := filepath.Join(root, use)
		touchAll(t, dir)
		t.Run(filepath.ToSlash(use), func(t *testing.T) {
			args := append([]string{"test"}, raceFlag...)
			cmd := exec.CommandContext(t.Context(), goCmd, append(args, "./...")...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			t.Logf("go %v in %s:\n%s", cmd.Args[1:], use, out)
			if err != nil {
				t.Errorf("the tests of module %s failed: %v", use, err)
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
