package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestErrorReadsFromTheOutsideIn(t *testing.T) {
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{"a sentinel alone", &Error{Op: "append", Seq: 3, Err: ErrClosed}, "events: closed: append record 3"},
		{"a sentinel joined with its cause", &Error{Op: "read", Seq: 1, Detail: "damaged line at byte 0", Err: errors.Join(ErrCorrupt, io.ErrUnexpectedEOF)},
			"events: corrupt log: read record 1: damaged line at byte 0: unexpected EOF"},
		{"a sentinel wrapped with its cause", &Error{Op: "append", Detail: "a write or fsync failed; reopen the log", Err: fmt.Errorf("%w: %w", ErrClosed, io.ErrShortWrite)},
			"events: closed: append: a write or fsync failed; reopen the log: short write"},
		{"a cause without a sentinel", &Error{Op: "open", Err: fs.ErrNotExist}, "events: open: file does not exist"},
		{"no error at all", &Error{Op: "open", Detail: "nil log"}, "events: open: nil log"},
		{"a stream closed by a damaged log", &Error{Op: "subscribe", Detail: "reading the followed log failed",
			Err: fmt.Errorf("%w: %w", ErrClosed, &Error{Op: "read", Seq: 2, Err: errors.Join(ErrCorrupt, io.ErrUnexpectedEOF)})},
			"events: closed: subscribe: reading the followed log failed: events: corrupt log: read record 2: unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

// The message of a damaged log names where the damage is, then what it
// is; its sentinel and cause still match.
func TestACorruptLogSaysWhereThenWhy(t *testing.T) {
	_, lines := writeLog(t)
	openFile := func(p string) (Log, error) { return OpenFile(p) }
	followFile := func(p string) (Log, error) { return FollowFile(p) }
	var syntax *json.SyntaxError
	tests := []struct {
		name    string
		content [][]byte
		open    func(string) (Log, error)
		want    string
		cause   any // what the cause must match with errors.As, if anything
	}{
		{"the writer's OpenFile of a damaged line", [][]byte{[]byte("{\n"), lines[0]}, openFile,
			"events: corrupt log: open record 1: line 1 at byte 0 is not a record: unexpected end of JSON input", &syntax},
		{"a reader's FollowFile of a damaged line", [][]byte{[]byte("{\n"), lines[0]}, followFile,
			"events: corrupt log: read record 1: line 1 at byte 0 is not a record: unexpected end of JSON input", &syntax},
		{"the writer's OpenFile of a gap", [][]byte{lines[0], lines[2]}, openFile,
			fmt.Sprintf("events: corrupt log: open record 2: line 2 at byte %d: sequence 3 where 2 was due", len(lines[0])), nil},
		{"a reader's FollowFile once a record follows a damaged last line", [][]byte{lines[0], []byte("x\n")}, followThenGrow(lines[1]),
			fmt.Sprintf("events: corrupt log: read record 2: line 2 at byte %d is not a record: invalid character 'x' looking for beginning of value", len(lines[0])), &syntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "session.ndjson")
			if err := os.WriteFile(p, bytes.Join(tt.content, nil), 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := tt.open(p)
			if err == nil {
				l.Close()
				t.Fatal("the damaged log was opened")
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error reads %q, want %q", got, tt.want)
			}
			var e *Error
			if !errors.Is(err, ErrCorrupt) || !errors.As(err, &e) {
				t.Errorf("error %v: want an *Error matching ErrCorrupt", err)
			}
			if tt.cause != nil && !errors.As(err, tt.cause) {
				t.Errorf("error %v: want its cause, a %T", err, tt.cause)
			}
		})
	}
}

// followThenGrow opens a log with FollowFile, appends more to the file,
// and returns the error the log then reads.
func followThenGrow(more []byte) func(string) (Log, error) {
	return func(p string) (Log, error) {
		l, err := FollowFile(p)
		if err != nil {
			return nil, err
		}
		defer l.Close()
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if _, err := f.Write(more); err != nil {
			return nil, err
		}
		for _, err := range l.Records(0) {
			if err != nil {
				return nil, err
			}
		}
		return nil, errors.New("no error after the file grew")
	}
}
