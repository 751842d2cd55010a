package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tail and view read log files that anyone may have written: tail
// never panics, prints a line per record it read, and either reaches the
// end or stops with a one-line error.
func FuzzLogReader(f *testing.F) {
	path, s := writeLog(f, session...)
	s.Close()
	good, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)-9])
	f.Add(append(append([]byte{}, good...), "{}\n"...))
	f.Add([]byte("\n"))
	p := filepath.Join(f.TempDir(), "log")
	f.Fuzz(func(t *testing.T, content []byte) {
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCmd(t.Context(), "", "tail", "-follow=false", p)
		switch {
		case code == exitOK && stderr != "":
			t.Fatalf("status 0 with stderr %q", stderr)
		case code == exitUsage && strings.Count(stderr, "\n") != 1:
			t.Fatalf("stderr %q is not one line", stderr)
		case code != exitOK && code != exitUsage:
			t.Fatalf("status %d", code)
		}
		if n := strings.Count(stdout, "\n"); n > strings.Count(string(content), "\n") {
			t.Fatalf("%d lines printed from %d lines of log", n, strings.Count(string(content), "\n"))
		}
	})
}
