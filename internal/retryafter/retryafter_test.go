package retryafter

import (
	"net/http"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"absent", nil, 0},
		{"seconds", map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"an HTTP date", map[string]string{"Retry-After": "Sun, 01 Jun 2025 12:00:09 GMT"}, 9 * time.Second},
		{"an HTTP date in the past", map[string]string{"Retry-After": "Sun, 01 Jun 2025 11:00:00 GMT"}, 0},
		{"milliseconds win over seconds", map[string]string{"Retry-After-Ms": "250", "Retry-After": "3"}, 250 * time.Millisecond},
		{"bad milliseconds fall back to seconds", map[string]string{"Retry-After-Ms": "soon", "Retry-After": "3"}, 3 * time.Second},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"negative", map[string]string{"Retry-After": "-5"}, 0},
		{"huge is capped", map[string]string{"Retry-After": "1e300"}, Max},
		{"past a float's range is capped too", map[string]string{"Retry-After": "1e400"}, Max},
		{"milliseconds past a float's range are capped", map[string]string{"Retry-After-Ms": "1e400"}, Max},
		{"below a float's range is none", map[string]string{"Retry-After": "1e-400"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			if got := Read(h, now); got != tt.want {
				t.Errorf("Read = %v, want %v", got, tt.want)
			}
		})
	}
}
