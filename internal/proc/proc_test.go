package proc

import (
	"testing"
	"time"
)

func TestTheDeadlineFallsBeforeTheTestsOwn(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		left time.Duration
		want time.Duration
	}{
		{"ten minutes left: the margin before it", 10 * time.Minute, 10*time.Minute - margin},
		{"twice the margin left: the margin before it", 2 * margin, margin},
		{"less than twice the margin left: halfway there", 10 * time.Second, 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := earlier(now.Add(tc.left), now).Sub(now); got != tc.want {
				t.Errorf("earlier = now + %s, want now + %s", got, tc.want)
			}
		})
	}
}
