package main

import (
	"fmt"
	"os"
	"time"

	"github.com/enforcer-go/enforcer/events"
)

// pollEvery is how often tail and view look at the end of a log for more
// (tests shorten it).
var pollEvery = 250 * time.Millisecond

// followLog opens the file log at name for reading beside its writer
// (events.FollowFile). Only a regular file is opened: opening a FIFO
// would block until something writes to it.
func followLog(name string) (events.Follower, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	return events.FollowFile(name, events.PollEvery(pollEvery))
}
