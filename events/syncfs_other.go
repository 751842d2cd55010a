//go:build !linux

package events

import (
	"errors"
	"os"
)

// syncfsDevice reports no filesystem a syncfs covers: elsewhere than
// Linux each log fsyncs its own file.
func syncfsDevice(string) (uint64, bool) { return 0, false }

func syncfs(*os.File) error { return errors.New("syncfs is Linux's") }
