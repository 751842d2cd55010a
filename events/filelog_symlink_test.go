package events

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// dirSyncs records the directories a log fsyncs, and fsyncs them.
type dirSyncs struct {
	mu   sync.Mutex
	dirs []string
}

func (d *dirSyncs) option() FileOption {
	return fileOption(func(o *fileOptions) {
		o.syncDir = func(dir string) error {
			d.mu.Lock()
			d.dirs = append(d.dirs, dir)
			d.mu.Unlock()
			return syncDir(dir)
		}
	})
}

// A log opened through a symlink whose file does not exist yet creates
// the file where the link points, and fsyncs that directory — the one
// whose entry names the new file — not the link's.
func TestALogCreatedThroughASymlinkSyncsTheDirectoryOfItsFile(t *testing.T) {
	linkDir, fileDir := t.TempDir(), t.TempDir()
	realDir, err := filepath.EvalSymlinks(fileDir)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(linkDir, "session.ndjson")
	if err := os.Symlink(filepath.Join(fileDir, "session.ndjson"), link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	var synced dirSyncs
	l, err := OpenFile(link, synced.option())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Append(record(1)); err != nil {
		t.Fatal(err)
	}
	if len(synced.dirs) != 1 || synced.dirs[0] != realDir {
		t.Errorf("OpenFile fsynced the directories %q, want the file's %q alone", synced.dirs, realDir)
	}
}

// A log opened through a symlink into another filesystem shares the
// committer of its file's filesystem, whose syncfs makes its records
// durable, not that of the link's. tmpfs (/dev/shm) holds the link; the
// file is on the test's temporary directory's filesystem.
func TestALogOpenedThroughASymlinkIsSyncedOnItsFilesFilesystem(t *testing.T) {
	shm, err := os.MkdirTemp("/dev/shm", "events-test-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	fileDir := t.TempDir()
	linkDev, linkOK := syncfsDevice(shm)
	fileDev, fileOK := syncfsDevice(fileDir)
	if !linkOK || linkDev == fileDev {
		t.Skip("needs /dev/shm on a filesystem syncfs covers, other than the temporary directory's")
	}
	link := filepath.Join(shm, "session.ndjson")
	target := filepath.Join(fileDir, "session.ndjson")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	lg, err := OpenFile(link)
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	if err := lg.Append(record(1)); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(target, &st); err != nil {
		t.Fatal(err)
	}
	c := lg.(*fileLog).c
	switch {
	case c.dir == nil && fileOK:
		t.Errorf("the log fsyncs its file alone; want the shared committer of its file's filesystem (device %d)", fileDev)
	case c.dir != nil && c.dev != uint64(st.Dev):
		t.Errorf("the log's records are synced by a syncfs of device %d (the link's is %d); its file is on device %d", c.dev, linkDev, st.Dev)
	}
}
