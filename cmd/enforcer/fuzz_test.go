package main

import (
	"os"
	"path/filepath"
	"testing"
)

// tail and view read log files that anyone may have written: the reader
// never panics, reads each record once, in sequence, and stops.
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
		r, err := openLog(p)
		if err != nil {
			t.Fatal(err)
		}
		defer r.close()
		for want := int64(1); ; want++ {
			rec, ok, err := r.next()
			if err != nil || !ok {
				return
			}
			if rec.Sequence != want {
				t.Fatalf("read record %d, want %d", rec.Sequence, want)
			}
			_ = describe(rec)
		}
	})
}
