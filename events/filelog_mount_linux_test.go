package events

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// mountEnv names the variable that runs the test below, which needs root
// to loop-mount filesystem images; go test alone skips it.
const mountEnv = "EVENTS_MOUNT_TEST"

// Every acknowledged record survives a power cut of the filesystem its
// file is on, when the log was opened through a symlink from another
// one. The power cut is a copy of that filesystem's image taken right
// after the appends returned, before the log closes: what a machine
// losing power then would find on its disk.
//
//	sudo EVENTS_MOUNT_TEST=1 go test -run PowerCut ./events
func TestRecordsAppendedThroughASymlinkIntoAnotherFilesystemSurviveAPowerCut(t *testing.T) {
	if os.Getenv(mountEnv) == "" {
		t.Skipf("set %s=1, as root, to loop-mount ext4 images", mountEnv)
	}
	for _, tool := range []string{"mkfs.ext4", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s=1 but %v", mountEnv, err)
		}
	}
	run := func(name string, args ...string) {
		t.Helper()
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %q: %v\n%s", name, args, err, out)
		}
	}
	mount := func(img, at string) {
		t.Helper()
		if err := os.Mkdir(at, 0o755); err != nil {
			t.Fatal(err)
		}
		run("mount", "-o", "loop", img, at)
		t.Cleanup(func() { exec.Command("umount", at).Run() })
	}
	dir := t.TempDir()
	img := filepath.Join(dir, "fs.img")
	f, err := os.Create(img)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	run("mkfs.ext4", "-q", "-F", img)
	mount(img, filepath.Join(dir, "mnt"))
	link := filepath.Join(dir, "session.ndjson")
	if err := os.Symlink(filepath.Join(dir, "mnt", "session.ndjson"), link); err != nil {
		t.Fatal(err)
	}

	l, err := OpenFile(link)
	if err != nil {
		t.Fatal(err)
	}
	const n = 20
	for seq := int64(1); seq <= n; seq++ {
		if err := l.Append(record(seq)); err != nil {
			t.Fatal(err)
		}
	}
	image, err := os.ReadFile(img) // the power cut
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	after := filepath.Join(dir, "after.img")
	if err := os.WriteFile(after, image, 0o644); err != nil {
		t.Fatal(err)
	}
	mount(after, filepath.Join(dir, "after")) // replays the journal, as booting does
	data, err := os.ReadFile(filepath.Join(dir, "after", "session.ndjson"))
	if err != nil {
		t.Fatalf("after the power cut: %v; want the log's %d acknowledged records", err, n)
	}
	lines := 0
	for sc := bufio.NewScanner(bytes.NewReader(data)); sc.Scan(); {
		lines++
	}
	if lines != n {
		t.Errorf("after the power cut the log holds %d lines, want the %d acknowledged records", lines, n)
	}
}
