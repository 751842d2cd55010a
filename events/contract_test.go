package events

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestHugeTextFieldsAreCappedSoEveryRecordReadsBack(t *testing.T) {
	l, err := OpenFile(filepath.Join(t.TempDir(), "s.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStream(testSession, l, WithBuffer(1))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	huge := strings.Repeat("x", 17<<20)
	if _, err := s.Append(SchemaRetry{TurnID: "t", Attempt: 1, Iteration: 1, Stage: "json-parse", Error: huge, CorrectiveMessageHash: "0123abcd"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(TurnCompleted{TurnID: "t", Terminal: "completed"}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for nt, err := range s.Subscribe(context.Background(), "") {
		if err != nil {
			t.Fatalf("after %d notifications: %v", n, err)
		}
		n++
		if len(nt.Params) > 2*maxText {
			t.Errorf("a %d-byte frame: the error was not capped", len(nt.Params))
		}
		if nt.Method == "turn/completed" {
			break
		}
	}
	if n != 2 {
		t.Errorf("read %d notifications back, want 2", n)
	}
}

func TestIDsThatCannotTravelIntactAreRefused(t *testing.T) {
	for _, id := range []string{"s\xff", "a\nb", "a\rb", "a\x00b", strings.Repeat("s", maxID+1)} {
		if _, err := NewStream(id, NewMemoryLog()); err == nil {
			t.Errorf("NewStream(%q) accepted", id)
		}
	}
	s := newTestStream(t)
	for _, id := range []string{"t\xff", "t\n"} {
		if _, err := s.Append(TurnStarted{TurnID: id}); !errors.Is(err, ErrInvalid) {
			t.Errorf("Append(TurnStarted{%q}) = %v, want ErrInvalid", id, err)
		}
	}
}

func TestIDsThatDisplayAsAnotherOrBreakLinesAreRefused(t *testing.T) {
	tests := []struct {
		name string
		r    rune
	}{
		{"a C1 control (NEL)", '\u0085'},
		{"a left-to-right embedding", '\u202A'},
		{"a right-to-left override", '\u202E'},
		{"a left-to-right isolate", '\u2066'},
		{"a pop directional isolate", '\u2069'},
		{"a zero-width space", '\u200B'},
		{"a byte order mark", '\uFEFF'},
		{"a soft hyphen", '\u00AD'},
		{"a line separator", '\u2028'},
		{"a paragraph separator", '\u2029'},
	}
	s := newTestStream(t)
	for _, tt := range tests {
		t.Run(tt.name+" is refused", func(t *testing.T) {
			id := "t" + string(tt.r) + "1"
			if _, err := NewStream(id, NewMemoryLog()); !errors.Is(err, ErrInvalid) {
				t.Errorf("NewStream(%+q) = %v, want ErrInvalid", id, err)
			}
			if _, err := s.Append(TurnStarted{TurnID: id}); !errors.Is(err, ErrInvalid) {
				t.Errorf("Append(TurnStarted{TurnID: %+q}) = %v, want ErrInvalid", id, err)
			}
			if _, err := s.Append(TurnStarted{TurnID: "t", CommandID: id}); !errors.Is(err, ErrInvalid) {
				t.Errorf("Append(TurnStarted{CommandID: %+q}) = %v, want ErrInvalid", id, err)
			}
		})
	}
	t.Run("letters of any script, spaces and emoji are accepted", func(t *testing.T) {
		for _, id := range []string{"tour-é", "ターン 1", "ход\u00A0два", "🙂"} {
			if _, err := s.Append(TurnStarted{TurnID: id}); err != nil {
				t.Errorf("Append(TurnStarted{TurnID: %+q}) = %v", id, err)
			}
		}
	})
}

func TestInvalidUTF8InTextFoldsTheSameLiveAndReplayed(t *testing.T) {
	s := newTestStream(t)
	live, err := s.Append(TurnCompleted{TurnID: "t", Terminal: "completed", Reason: "bad\xffbyte"})
	if err != nil {
		t.Fatal(err)
	}
	for replayed, err := range s.Subscribe(context.Background(), "") {
		if err != nil {
			t.Fatal(err)
		}
		if string(replayed.Params) != string(live.Params) {
			t.Errorf("replayed %s, live %s", replayed.Params, live.Params)
		}
		break
	}
}
