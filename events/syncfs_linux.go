package events

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// sysSyncfs is syncfs(2)'s number by architecture; the syscall package
// does not name it everywhere. Elsewhere each log fsyncs its own file.
var sysSyncfs = map[string]uintptr{
	"amd64": 306, "386": 344, "arm": 373, "arm64": 267, "riscv64": 267,
	"loong64": 267, "ppc64": 348, "ppc64le": 348, "s390x": 338,
}

// syncfsTypes are the filesystems on which a syncfs makes every file's
// written data and size durable, as an fsync of each would. Others are
// left to fsync: FUSE's syncfs does not ask the server to sync, and an
// overlay or network filesystem is as durable as what lies under it.
var syncfsTypes = map[uint32]bool{
	0xEF53:     true, // ext2, ext3, ext4
	0x58465342: true, // xfs
	0x9123683E: true, // btrfs
	0xF2F52010: true, // f2fs
	0x01021994: true, // tmpfs: nothing to sync either way
}

// syncfsKernel reports a kernel whose syncfs returns the filesystem's
// write-back errors (Linux 5.8 and later); before, it returned 0 after
// a failed write-back, and an fsync must say so instead.
var syncfsKernel = func() bool {
	var u syscall.Utsname
	if syscall.Uname(&u) != nil {
		return false
	}
	var b strings.Builder
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		b.WriteByte(byte(c))
	}
	major, rest, _ := strings.Cut(b.String(), ".")
	minor, _, _ := strings.Cut(rest, ".")
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(strings.TrimRightFunc(minor, func(r rune) bool { return r < '0' || r > '9' }))
	return err1 == nil && err2 == nil && (ma > 5 || ma == 5 && mi >= 8)
}()

// syncfsDevice returns the device of the filesystem holding dir when one
// syncfs covers the logs on it.
func syncfsDevice(dir string) (uint64, bool) {
	if _, ok := sysSyncfs[runtime.GOARCH]; !ok || !syncfsKernel {
		return 0, false
	}
	var fs syscall.Statfs_t
	if syscall.Statfs(dir, &fs) != nil || !syncfsTypes[uint32(fs.Type)] {
		return 0, false
	}
	var st syscall.Stat_t
	if syscall.Stat(dir, &st) != nil {
		return 0, false
	}
	return uint64(st.Dev), true
}

// syncfs syncs the filesystem holding f and reports a write-back error
// of any of its files since f was opened or last reported one.
func syncfs(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		for {
			_, _, errno = syscall.Syscall(sysSyncfs[runtime.GOARCH], fd, 0, 0)
			if errno != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if errno != 0 {
		return &os.SyscallError{Syscall: "syncfs", Err: errno}
	}
	return nil
}
