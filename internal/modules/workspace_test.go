package modules_test

import (
	"io/fs"
	"path/filepath"
	"slices"
	"testing"

	"github.com/enforcer-go/enforcer/internal/gowork"
)

// TestTheWorkspaceListsEveryModule: the test command tests the modules
// all.work lists, so a module missing from it would go untested, and
// one listed but gone would break every run.
func TestTheWorkspaceListsEveryModule(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command; skipped with -short")
	}
	goCmd, err := gowork.GoTool()
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	root := filepath.Join("..", "..")
	work, err := gowork.Read(goCmd, root)
	if err != nil {
		t.Fatal(err)
	}
	var mods []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			mods = append(mods, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(slices.Values(work.Use))
	slices.Sort(mods)
	if !slices.Equal(got, mods) {
		t.Errorf("%s uses %v,\nthe repository's go.mod files are in %v", gowork.File, got, mods)
	}
}
