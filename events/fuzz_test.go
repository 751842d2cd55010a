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
		f.Add(n.Method, []byte(n.Params))
	}
	f.Add(MethodTurnRetry, []byte(`{"attempt":1e3,"retryDelayMs":9223372036854775807,"retryKind":"model"}`))
	f.Add(MethodTurnCompleted, []byte(`{"terminal":"failed","error":null,"durationMs":-5}`))
	f.Add("turn/steered", []byte(`{}`))
	f.Fuzz(func(t *testing.T, method string, params []byte) {
		n := Notification{JSONRPC: "2.0", Method: method, Params: params}
		ev, err := n.Event()
		if err != nil {
			var e *Error
			if ev != nil || !errors.As(err, &e) || e.Op != "decode" {
				t.Fatalf("Event() = %#v, %v; want nil and an *Error", ev, err)
			}
			return
		}
		if ev.info().method != method || n.IsTerminal() != ev.info().terminal {
			t.Fatalf("method %q decoded as %T", method, ev)
		}
		back, err := Notification{JSONRPC: "2.0", Method: method, Params: marshalWire(ev)}.Event()
		if err != nil {
			t.Fatalf("re-decoding %s: %v", marshalWire(ev), err)
		}
		if !reflect.DeepEqual(back, ev) {
			t.Fatalf("round trip changed the event:\n%#v\n%#v", ev, back)
		}
		_ = n.Describe(0)
	})
}
