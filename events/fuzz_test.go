package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzRecordUnmarshal feeds log lines to the record decoder: it must never
// panic, and what it accepts must re-encode to a record that decodes to the
// same thing and folds, twice, to the same frame.
func FuzzRecordUnmarshal(f *testing.F) {
	_, lines := writeLog(f)
	for _, l := range lines {
		f.Add(bytes.TrimSuffix(l, []byte("\n")))
	}
	f.Add([]byte(`{"seq":1,"id":"a","stream":"s","atMs":0,"kind":"turn_started","data":null}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var r Record
		if r.UnmarshalJSON(line) != nil {
			return
		}
		b, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var back Record
		if err := back.UnmarshalJSON(b); err != nil {
			t.Fatalf("re-decoding %s: %v", b, err)
		}
		if !back.Time.Equal(r.Time) {
			t.Fatalf("time changed: %v then %v", r.Time, back.Time)
		}
		back.Time = r.Time
		if !reflect.DeepEqual(back, r) {
			t.Fatalf("round trip changed the record:\n%#v\n%#v", r, back)
		}
		n1, err1 := r.Notification()
		n2, err2 := back.Notification()
		if err1 != nil || err2 != nil {
			t.Fatalf("a decoded record does not fold: %v, %v", err1, err2)
		}
		if !bytes.Equal(n1.Params, n2.Params) || !isJSONObject(n1.Params) {
			t.Fatalf("folds differ or are not JSON:\n%s\n%s", n1.Params, n2.Params)
		}
	})
}

// FuzzOpenFile opens arbitrary file contents as a log: it must never panic;
// it either refuses the file untouched, or keeps a prefix of it made of
// complete, readable records and can append after them.
func FuzzOpenFile(f *testing.F) {
	_, lines := writeLog(f)
	all := bytes.Join(lines, nil)
	f.Add(all)
	f.Add(all[:len(all)-7])
	f.Add(append(bytes.Clone(all), "garbage"...))
	f.Add(bytes.Join([][]byte{lines[0], []byte("x\n"), lines[1]}, nil))
	f.Add([]byte("\n\n"))
	f.Add([]byte(`{"a":1}` + "\n"))
	p := filepath.Join(f.TempDir(), "log") // one file, rewritten per input: cheaper than a directory each
	f.Fuzz(func(t *testing.T, content []byte) {
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := OpenFile(p, withoutFsync()) // an fsync per input would stall fuzzing and minimising
		after, _ := os.ReadFile(p)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if !bytes.Equal(after, content) {
				t.Fatal("a refused file was changed")
			}
			return
		}
		defer l.Close()
		if !bytes.HasPrefix(content, after) {
			t.Fatal("the kept file is not a prefix of the original")
		}
		n := int64(0)
		var stream string
		for r, err := range l.Records(0) {
			if err != nil {
				t.Fatal(err)
			}
			if n++; r.Sequence != n {
				t.Fatalf("record %d has sequence %d", n, r.Sequence)
			}
			stream = r.Stream
		}
		if n != l.Last() {
			t.Fatalf("read %d records, Last() = %d", n, l.Last())
		}
		if stream == "" {
			stream = "s"
		}
		if err := l.Append(Record{Stream: stream, Sequence: n + 1, ID: "x", Event: TurnStarted{TurnID: "t", CommandID: "t"}}); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzFollowFile follows arbitrary file contents as they are written in
// three parts (cut at a and b): a reader that checks the file between
// the writes — reading a line still being written once, then only the
// bytes added to it — must end where one that reads the whole file at
// once ends: the same records, and an error exactly when that one has
// one. It must never panic.
func FuzzFollowFile(f *testing.F) {
	_, lines := writeLog(f)
	all := bytes.Join(lines, nil)
	f.Add(all, uint16(len(lines[0])+5), uint16(len(lines[0])+len(lines[1])))
	f.Add(all, uint16(3), uint16(len(all)-1))
	f.Add(append(bytes.Clone(all), "garbage"...), uint16(len(all)+2), uint16(len(all)+4))
	f.Add(bytes.Join([][]byte{lines[0], []byte("x\n"), lines[1]}, nil), uint16(len(lines[0])+1), uint16(len(lines[0])+2))
	f.Add(bytes.Join([][]byte{lines[0], []byte(`{"a":1}` + "\n")}, nil), uint16(len(lines[0])+3), uint16(len(lines[0])+7))
	dir := f.TempDir()
	whole, parts := filepath.Join(dir, "whole"), filepath.Join(dir, "parts")
	f.Fuzz(func(t *testing.T, content []byte, a, b uint16) { followInParts(t, whole, parts, content, a, b) })
}

// followInParts is FuzzFollowFile's check of content cut at a and b,
// with files whole and parts.
func followInParts(t *testing.T, whole, parts string, content []byte, a, b uint16) {
	cutA := min(int(a), len(content))
	cutB := min(max(int(b), cutA), len(content))
	if err := os.WriteFile(whole, content, 0o644); err != nil {
		t.Fatal(err)
	}
	want, wantErr := followAll(whole)
	if err := os.WriteFile(parts, content[:cutA], 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := FollowFile(parts)
	var got []Record
	if err == nil {
		defer l.Close()
		for _, part := range [][]byte{content[cutA:cutB], content[cutB:]} {
			if err = readFollowed(l, &got); err != nil {
				break
			}
			w, ferr := os.OpenFile(parts, os.O_WRONLY|os.O_APPEND, 0)
			if ferr != nil {
				t.Fatal(ferr)
			}
			_, ferr = w.Write(part)
			w.Close()
			if ferr != nil {
				t.Fatal(ferr)
			}
		}
		if err == nil {
			err = readFollowed(l, &got)
		}
	}
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("read in parts at %d and %d: %v; read whole: %v", cutA, cutB, err, wantErr)
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v is not an *Error", err)
		}
		return
	}
	if len(got) != len(want) {
		t.Fatalf("read in parts at %d and %d: %d records; read whole: %d", cutA, cutB, len(got), len(want))
	}
	for i := range got {
		if got[i].ID != want[i].ID || got[i].Sequence != want[i].Sequence {
			t.Fatalf("record %d read in parts is %d %q, read whole %d %q", i+1, got[i].Sequence, got[i].ID, want[i].Sequence, want[i].ID)
		}
	}
}

// followAll reads the file log at name at once, as FollowFile does.
func followAll(name string) ([]Record, error) {
	l, err := FollowFile(name)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	var recs []Record
	return recs, readFollowed(l, &recs)
}

// readFollowed appends to recs the records of l after those in it.
func readFollowed(l Follower, recs *[]Record) error {
	for r, err := range l.Records(int64(len(*recs))) {
		if err != nil {
			return err
		}
		*recs = append(*recs, r)
	}
	return nil
}

// FuzzReadSSE parses arbitrary event streams: no panics, and every
// notification yielded is a JSON-RPC 2.0 frame.
func FuzzReadSSE(f *testing.F) {
	frame := `{"jsonrpc":"2.0","method":"turn/started","params":{"viewCursor":"c1"}}`
	f.Add([]byte("id: c1\nevent: turn/started\ndata: " + frame + "\n\n"))
	f.Add([]byte(": comment\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"method\":\"m\",\"params\":{}}\r\n\r\n"))
	f.Add([]byte("data\nid\x00: x\nretry: 10\n\ndata: [1]\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > maxFuzzSSE {
			t.Skip() // bounded work per input; longer lines are tested in TestReadSSE
		}
		for n, err := range ReadSSE(bytes.NewReader(in)) {
			if err != nil {
				return
			}
			if n.JSONRPC != "2.0" || n.Method == "" {
				t.Fatalf("yielded a non-frame %#v", n)
			}
			_ = n.Describe(0)
		}
	})
}

// maxFuzzSSE bounds one FuzzReadSSE input, so that each input costs at
// most a few milliseconds.
const maxFuzzSSE = 64 << 10

// withoutFsync turns every fsync of a file log off: for fuzzing only.
func withoutFsync() FileOption {
	return fileOption(func(o *fileOptions) { o.noSync = true })
}

func isJSONObject(b []byte) bool {
	return json.Valid(b) && len(b) > 0 && b[0] == '{'
}

// A client decodes whatever a server sends: Event never panics, fails
// with an *Error, and what it decodes encodes back to params that decode
// to the same event.
func FuzzNotificationEvent(f *testing.F) {
	_, ns := appendAll(f, transcript())
	for _, n := range ns {
		f.Add(string(n.Method), []byte(n.Params))
	}
	f.Add(string(MethodTurnRetry), []byte(`{"attempt":1e3,"retryDelayMs":9223372036854775807,"retryKind":"model"}`))
	f.Add(string(MethodTurnCompleted), []byte(`{"terminal":"failed","error":null,"durationMs":-5}`))
	f.Add("turn/steered", []byte(`{}`))
	f.Fuzz(func(t *testing.T, method string, params []byte) {
		n := Notification{JSONRPC: "2.0", Method: Method(method), Params: params}
		ev, err := n.Event()
		if err != nil {
			var e *Error
			if ev != nil || !errors.As(err, &e) || e.Op != "decode" {
				t.Fatalf("Event() = %#v, %v; want nil and an *Error", ev, err)
			}
			return
		}
		if ev.info().method != Method(method) || n.IsTerminal() != ev.info().terminal {
			t.Fatalf("method %q decoded as %T", method, ev)
		}
		back, err := Notification{JSONRPC: "2.0", Method: Method(method), Params: marshalWire(ev)}.Event()
		if err != nil {
			t.Fatalf("re-decoding %s: %v", marshalWire(ev), err)
		}
		if !reflect.DeepEqual(back, ev) {
			t.Fatalf("round trip changed the event:\n%#v\n%#v", ev, back)
		}
		_ = n.Describe(0)
	})
}
