package proc

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// running returns the processes, read from /proc, that are in the group
// pgid or among pids and still run: a zombie, killed and waiting for
// whoever adopted it to reap it, runs nothing and is not counted. Tests
// use it to show that nothing they started outlived them.
func running(pgid int, pids ...int) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var left []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // it ended while we looked
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) < 3 || f[0] == "Z" {
			continue
		}
		if group, _ := strconv.Atoi(f[2]); group == pgid || slices.Contains(pids, pid) {
			left = append(left, pid)
		}
	}
	return left, nil
}

// Gone waits, for at most within, until running finds nothing of the
// group pgid nor of pids, and says which processes are left if that
// does not happen: a killed process takes a moment to stop.
func Gone(within time.Duration, pgid int, pids ...int) error {
	deadline := time.Now().Add(within)
	for {
		left, err := running(pgid, pids...)
		if err != nil || len(left) == 0 {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes %v of group %d still run after %s", left, pgid, within)
		}
		time.Sleep(10 * time.Millisecond) // polling the kernel
	}
}
