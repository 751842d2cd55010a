package readme

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Shows passes the output a guide shows and names the guide's line of
// the first line that differs.
func TestShowsNamesTheGuidesLineThatDiffers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "guide.md")
	md := "# Guide\n\n`go run ./x` prints:\n\n```\none\ntwo\n```\n"
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Shows(path, "`go run ./x` prints:", "one\ntwo\n"); err != nil {
		t.Errorf("Shows of the shown output = %v, want nil", err)
	}
	err := Shows(path, "`go run ./x` prints:", "one\n2\n")
	if err == nil || !strings.Contains(err.Error(), "line 7:") || !strings.Contains(err.Error(), `"2"`) {
		t.Errorf("Shows of another output = %v, want the guide's line 7 named", err)
	}
	if err := Shows(path, "no such lead", "one\ntwo\n"); err == nil {
		t.Error("Shows with a lead no block follows = nil, want an error")
	}
}
