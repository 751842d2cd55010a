//go:build unix

package events

import (
	"io/fs"
	"os"
	"syscall"
)

// fileID names a file on its machine: its device and inode.
type fileID struct{ dev, ino uint64 }

// idOf is the fileID of fi, which os.Stat or File.Stat returned.
func idOf(fi os.FileInfo) fileID {
	st, _ := fi.Sys().(*syscall.Stat_t)
	if st == nil {
		return fileID{}
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)} // Dev is int32 on some systems
}

// statPath is what os.Stat(name) says of the file's identity and size,
// without the FileInfo os.Stat allocates: each append asks (see
// fileLog.checkPath).
func statPath(name string) (fileID, int64, error) {
	var st syscall.Stat_t
	for {
		err := syscall.Stat(name, &st)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return fileID{}, 0, &fs.PathError{Op: "stat", Path: name, Err: err}
		}
		return fileID{uint64(st.Dev), uint64(st.Ino)}, st.Size, nil
	}
}

// same reports whether a and b name one file.
func (a fileID) same(b fileID) bool { return a == b && a != fileID{} }
