//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package events

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive, non-blocking flock on f, held until f is
// closed. flock locks belong to the open file description, so a second
// OpenFile of the same file — in this process or another — is refused.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return &Error{Op: "open", Detail: f.Name() + " is open for writing elsewhere", Err: ErrLocked}
		}
		return &Error{Op: "open", Detail: "locking the file", Err: err}
	}
}
