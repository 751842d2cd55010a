package events

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestOnlyIssuedCursorsAreAccepted(t *testing.T) {
	for _, c := range []string{
		"v:s:1", "v:s:0000000000000000001", "v:s:0000000000007 ",
		"v:s:000000000007",                   // the old form, without a fingerprint
		"v:s:000000000007:00000000000000ab ", // trailing space
		"v:s:000000000007:AB00000000000000",  // not lowercase
		"v:s:000000000007:0ab",               // too short
		"v:s:000000000000:00000000000000ab",  // record 0 does not exist
	} {
		if _, err := parseCursor("s", c); !errors.Is(err, ErrCursor) {
			t.Errorf("parseCursor(%q) = %v, want ErrCursor", c, err)
		}
	}
	if seq, err := parseCursor("s", cursor("s", 7, 0xab)); err != nil || seq != 7 {
		t.Errorf("an issued cursor: %d, %v", seq, err)
	}
}

// laterClock is fixedClock an hour on: the clock of a machine that came
// back after a power failure.
func laterClock() func() time.Time {
	c := fixedClock()
	return func() time.Time { return c().Add(time.Hour) }
}

// forkHistory writes five records to a file log and keeps their
// notifications, then cuts the file back to its first keep records, as a
// power failure under SyncEvery (or restoring an older backup) would,
// reopens it and appends two new records in their place.
func forkHistory(t *testing.T, keep int) (s *Stream, old []Notification) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.ndjson")
	first := openStream(t, path, SyncEvery(100, 0))
	for i := range 5 {
		n, err := first.Append(TurnStarted{TurnID: fmt.Sprintf("t%d", i+1)})
		if err != nil {
			t.Fatal(err)
		}
		old = append(old, n)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	if err := os.WriteFile(path, bytes.Join(lines[:keep], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err = NewStream(testSession, l, WithClock(laterClock()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for i := range 2 {
		if _, err := s.Append(TurnStarted{TurnID: fmt.Sprintf("new%d", i+1)}); err != nil {
			t.Fatal(err)
		}
	}
	return s, old
}

func TestACursorFromAnotherHistoryIsStaleNotSilentlySkipped(t *testing.T) {
	s, old := forkHistory(t, 3) // records 4 and 5 lost; two new ones are 4 and 5 now
	tests := []struct {
		name      string
		cursor    string
		wantStale bool
		wantTurns []string // delivered after the cursor, when not stale
	}{
		{"a cursor of a lost record whose number was reused", old[3].Cursor(), true, nil},
		{"a cursor of the last lost record", old[4].Cursor(), true, nil},
		{"a cursor of a record that survived", old[2].Cursor(), false, []string{"new1", "new2"}},
		{"no cursor", "", false, []string{"t1", "t2", "t3", "new1", "new2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.wantStale {
				cancel() // so that a cursor wrongly accepted ends the subscription at once
			}
			var got []string
			var gotErr error
			for n, err := range s.Subscribe(ctx, tt.cursor) {
				if err != nil || tt.wantStale { // a stale cursor's first yield must be the error
					gotErr = err
					break
				}
				var p struct{ TurnID string }
				json.Unmarshal(n.Params, &p)
				if got = append(got, p.TurnID); len(got) == len(tt.wantTurns) {
					break
				}
			}
			if tt.wantStale {
				if !errors.Is(gotErr, ErrStale) || !errors.Is(gotErr, ErrCursor) {
					t.Fatalf("got %v after %v, want ErrStale (and ErrCursor)", gotErr, got)
				}
				var e *Error
				if !errors.As(gotErr, &e) {
					t.Errorf("error %v is not an *Error", gotErr)
				}
				return
			}
			if gotErr != nil || strings.Join(got, " ") != strings.Join(tt.wantTurns, " ") {
				t.Errorf("got %v, %v; want %v", got, gotErr, tt.wantTurns)
			}
		})
	}
}

func TestACursorAheadOfARestoredLogIsStale(t *testing.T) {
	s, old := forkHistory(t, 1) // back to one record, then two new: 3 records
	for _, err := range s.Subscribe(cancelled(), old[4].Cursor()) {
		if !errors.Is(err, ErrStale) {
			t.Errorf("got %v, want ErrStale", err)
		}
		break
	}
}

func TestAStaleCursorIsFoundAlsoOutsideTheBuffer(t *testing.T) {
	s, old := forkHistory(t, 3)
	s2, err := NewStream(testSession, s.log, WithBuffer(1)) // record 4 only in the log
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range s2.Subscribe(cancelled(), old[3].Cursor()) {
		if !errors.Is(err, ErrStale) {
			t.Errorf("got %v, want ErrStale", err)
		}
		break
	}
}

func TestServeHTTPAnswersAStaleCursorWithGone(t *testing.T) {
	s, old := forkHistory(t, 3)
	srv := httptest.NewServer(s)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL, nil)
	req.Header.Set("Last-Event-ID", old[4].Cursor())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got, want := resp.StatusCode, http.StatusGone; got != want {
		t.Errorf("status %d, want %d", got, want)
	}
}

// cancelled is a done context: a subscription that passes its cursor
// check ends at once with context.Canceled instead of waiting.
func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}
