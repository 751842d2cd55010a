package events

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Describe renders n as one line for a person, elapsed after it arrived;
// each event type documents its line. A retry's countdown is retryDelayMs
// minus elapsed, rounded up to seconds, and "retrying now" at or below
// zero. A provider's own text is never shown, nor a control or
// bidi-control character; a malformed frame renders from what could be
// read, an unknown method as is.
func (n Notification) Describe(elapsed time.Duration) string {
	k := methods[n.Method]
	if k == nil {
		return oneLine(string(n.Method))
	}
	ev, _ := k.decode(n.Params) // a malformed frame renders from what decoded
	return oneLine(ev.describe(elapsed))
}

// oneLine makes s one line safe to print on a terminal: tabs and line
// ends become spaces, other control and bidi-control characters go.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) && !strings.ContainsFunc(s, isBidiControl) {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t' || r == '\r':
			return ' '
		case unicode.IsControl(r) || isBidiControl(r):
			return -1
		}
		return r
	}, s)
}

func isBidiControl(r rune) bool { return unicode.Is(unicode.Bidi_Control, r) }

// retryLine is the line of both retry kinds.
func retryLine(attempt, maxAttempts int, delay, elapsed time.Duration, why string) string {
	return "attempt " + strconv.Itoa(attempt) + "/" + strconv.Itoa(maxAttempts) +
		" · " + countdown(delay.Milliseconds(), elapsed) + " · " + why
}

func countdown(delayMs int64, elapsed time.Duration) string {
	delayMs = max(0, min(delayMs, int64(math.MaxInt64/time.Millisecond)))
	left := time.Duration(delayMs)*time.Millisecond - max(elapsed, 0)
	if left <= 0 {
		return "retrying now"
	}
	secs := left / time.Second
	if left%time.Second != 0 {
		secs++ // rounded up: "in 1s" until it is due
	}
	return "retrying in " + strconv.FormatInt(int64(secs), 10) + "s"
}
