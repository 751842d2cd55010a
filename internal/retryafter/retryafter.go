// Package retryafter reads how long a provider asks a client to wait
// before it tries again, for the provider adapters and the framework
// integrations whose errors keep the response's headers.
package retryafter

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Max is the largest retry delay read from a provider (Retry-After,
// Gemini's RetryInfo), so that absurd values cannot overflow a
// time.Duration. It bounds what is read, not how long a retry waits:
// that is the retry policy's (agent.DefaultBackoff caps it).
const Max = 24 * time.Hour

// Read reads retry-after-ms (milliseconds), then Retry-After (seconds
// or an HTTP date, relative to now). Absent, unparsable or past values are
// 0; a value past Max, however large ("1e400"), is Max.
func Read(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if d, ok := scaled(v, time.Millisecond); ok {
			return d
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if d, ok := scaled(v, time.Second); ok {
		return d
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), Max)
	}
	return 0
}

func scaled(v string, unit time.Duration) (time.Duration, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if errors.Is(err, strconv.ErrRange) {
		err = nil // past float64's range ("1e400"): ±Inf, or 0, as numbers go
	}
	if err != nil || math.IsNaN(f) {
		return 0, false
	}
	if f <= 0 {
		return 0, true
	}
	if f >= float64(Max/unit) {
		return Max, true
	}
	return time.Duration(f * float64(unit)), true
}
