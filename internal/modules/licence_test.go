package modules_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestEveryModuleCarriesTheLicence: pkg.go.dev shows a module's
// documentation only when it finds a licence in the module's own zip, and
// a nested module's zip holds only its own folder. So every folder with a
// go.mod has a LICENSE equal to the repository's.
func TestEveryModuleCarriesTheLicence(t *testing.T) {
	root := filepath.Join("..", "..")
	want, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		t.Fatalf("the repository has no licence: %v", err)
	}
	if !bytes.Contains(want, []byte("Apache License\n                           Version 2.0, January 2004")) {
		t.Fatalf("LICENSE is not the Apache License 2.0")
	}
	n := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.Name() != "go.mod" {
			return nil
		}
		n++
		dir := filepath.Dir(path)
		got, err := os.ReadFile(filepath.Join(dir, "LICENSE"))
		switch {
		case err != nil:
			t.Errorf("module %s has no LICENSE: %v", dir, err)
		case !bytes.Equal(got, want):
			t.Errorf("module %s: LICENSE differs from the repository's", dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 2 {
		t.Errorf("found %d go.mod files, want the core's and the others'", n)
	}
}
