// Package eventtest holds what the adapters' and integrations' test
// helpers share about the events a run records.
package eventtest

import (
	"sync"

	"github.com/enforcer-go/enforcer/events"
)

// Recorder keeps every event a run records (a recorder for
// agent.WithEvents). It is safe for concurrent use.
type Recorder struct {
	mu  sync.Mutex
	evs []events.Event
}

// Append keeps ev.
func (r *Recorder) Append(ev events.Event) (events.Notification, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, ev)
	return events.Notification{}, nil
}

// Events returns the events kept so far, in order.
func (r *Recorder) Events() []events.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]events.Event(nil), r.evs...)
}

// ModelRetries returns the turn/modelRetryScheduled events kept so far.
func (r *Recorder) ModelRetries() []events.ModelRetry {
	var out []events.ModelRetry
	for _, ev := range r.Events() {
		if mr, ok := ev.(events.ModelRetry); ok {
			out = append(out, mr)
		}
	}
	return out
}
