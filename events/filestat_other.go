//go:build !unix

package events

import "os"

// fileID holds what os.SameFile compares where there is no inode to name.
type fileID struct{ fi os.FileInfo }

// idOf is the fileID of fi.
func idOf(fi os.FileInfo) fileID { return fileID{fi} }

// statPath is what os.Stat(name) says of the file's identity and size.
func statPath(name string) (fileID, int64, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return fileID{}, 0, err
	}
	return fileID{fi}, fi.Size(), nil
}

func (a fileID) same(b fileID) bool { return a.fi != nil && b.fi != nil && os.SameFile(a.fi, b.fi) }
