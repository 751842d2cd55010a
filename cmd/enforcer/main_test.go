package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
)

// runCmd runs the command in-process.
func runCmd(ctx context.Context, stdin string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(ctx, args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// wantOneLineError checks a refused command: status 2, nothing on
// stdout, one line on stderr that holds want.
func wantOneLineError(t *testing.T, code int, stdout, stderr, want string) {
	t.Helper()
	if code != exitUsage || stdout != "" {
		t.Errorf("status %d, stdout %q; want %d and nothing", code, stdout, exitUsage)
	}
	if !strings.HasPrefix(stderr, "enforcer: ") || strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
		t.Errorf("stderr %q is not one line starting with \"enforcer: \"", stderr)
	}
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr %q does not say %q", stderr, want)
	}
}

func write(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const citySchema = `{"type":"object","required":["city"],"properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1}}}`

func TestCheckJudgesAsTheLibraryDoes(t *testing.T) {
	schemaPath := write(t, "schema.json", citySchema)
	schema, err := enforce.CompileSchema([]byte(citySchema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, answer     string
		args             []string
		attempt, retries int
	}{
		{"a passing answer", `{"city":"Oslo","days":2}`, nil, 0, 0},
		{"an answer that is not JSON", `Oslo, two days`, nil, 1, 1},
		{"an answer missing a member and breaking a bound", `{"days":0}`, nil, 1, 1},
		{"trailing text after the JSON", `{"city":"Oslo"} thanks!`, nil, 1, 1},
		{"a later attempt of a run with three retries", `{"days":0}`, []string{"-attempt", "2", "-retries", "3"}, 2, 3},
		{"an answer past the size bound", `"` + strings.Repeat("x", enforce.MaxAnswerBytes+10) + `"`, nil, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			answerPath := write(t, "answer.txt", tt.answer)
			args := append(append([]string{"check"}, tt.args...), schemaPath, answerPath)
			code, stdout, stderr := runCmd(t.Context(), "", args...)
			if stderr != "" {
				t.Errorf("stderr %q", stderr)
			}
			var ce *enforce.CheckError
			if err := schema.Check(tt.answer); !errors.As(err, &ce) {
				if code != exitOK || stdout != "pass\n" {
					t.Errorf("status %d, stdout %q; want 0 and pass", code, stdout)
				}
				return
			}
			want := ce.Corrective(tt.attempt, tt.retries+1)
			if code != exitFail || strings.TrimSuffix(stdout, "\n") != strings.TrimSuffix(want, "\n") {
				t.Errorf("status %d, stdout:\n%s\nwant 1 and the library's corrective message:\n%s", code, stdout, want)
			}
		})
	}
	t.Run("an answer on standard input", func(t *testing.T) {
		code, stdout, _ := runCmd(t.Context(), `{"city":"Oslo"}`, "check", schemaPath, "-")
		if code != exitOK || stdout != "pass\n" {
			t.Errorf("status %d, stdout %q; want 0 and pass", code, stdout)
		}
	})
}

func TestCheckRefusesBadArgumentsAndFiles(t *testing.T) {
	schemaPath := write(t, "schema.json", citySchema)
	answerPath := write(t, "answer.txt", `{"city":"Oslo"}`)
	badSchema := write(t, "bad.json", `{"type": 12}`)
	notJSON := write(t, "notjson.json", `{"type":`)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "usage"},
		{"an unknown command", []string{"judge"}, `unknown command "judge"`},
		{"no operands", []string{"check"}, "want SCHEMA and ANSWER, got 0"},
		{"one operand", []string{"check", schemaPath}, "got 1"},
		{"an unknown flag", []string{"check", "-strict", schemaPath, answerPath}, "-strict"},
		{"zero retries", []string{"check", "-retries", "0", schemaPath, answerPath}, "-retries 0"},
		{"an attempt past the retries", []string{"check", "-attempt", "3", "-retries", "2", schemaPath, answerPath}, "-attempt 3"},
		{"a missing schema file", []string{"check", filepath.Join(t.TempDir(), "none.json"), answerPath}, "no such file"},
		{"a missing answer file", []string{"check", schemaPath, filepath.Join(t.TempDir(), "none.txt")}, "no such file"},
		{"a directory as the answer", []string{"check", schemaPath, t.TempDir()}, "answer"},
		{"a schema the library refuses", []string{"check", badSchema, answerPath}, "schema"},
		{"a schema that is not JSON", []string{"check", notJSON, answerPath}, "schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t.Context(), "", tt.args...)
			if tt.args == nil { // the usage, on stderr
				if code != exitUsage || !strings.Contains(stderr, "enforcer check") {
					t.Errorf("status %d, stderr %q; want 2 and the usage", code, stderr)
				}
				return
			}
			wantOneLineError(t, code, stdout, stderr, tt.want)
		})
	}
}

// writeLog records a session in a file log and returns its path and the
// stream, still open, as a writer would hold it.
func writeLog(t testing.TB, evs ...events.Event) (string, *events.Stream) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.ndjson")
	s := openWriter(t, path)
	appendEvents(t, s, evs...)
	return path, s
}

// openWriter opens the writer's stream of session-1 over the file log at
// path, with a clock that gives the times of sessionLines.
func openWriter(t testing.TB, path string) *events.Stream {
	t.Helper()
	l, err := events.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	s, err := events.NewStream("session-1", l, events.WithClock(func() time.Time { at = at.Add(250 * time.Millisecond); return at }))
	if err != nil {
		l.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func appendEvents(t testing.TB, s *events.Stream, evs ...events.Event) {
	t.Helper()
	for _, ev := range evs {
		if _, err := s.Append(ev); err != nil {
			t.Fatal(err)
		}
	}
}

var session = []events.Event{
	events.TurnStarted{TurnID: "t1"},
	events.ModelRetry{TurnID: "t1", Attempt: 1, NextAttempt: 2, MaxAttempts: 3, RetryDelay: 4 * time.Second, ErrorKind: events.KindRateLimit, HTTPStatus: 429},
	events.TurnRetry{TurnID: "t1", Attempt: 1, NextAttempt: 2, MaxAttempts: 2, Kind: events.RetryCorrective, Reason: "answer broke the output contract at json-parse"},
	events.TurnCompleted{TurnID: "t1", Terminal: events.TerminalCompleted},
}

var sessionLines = []string{
	"2026-05-01T10:00:00.250Z  t1  turn started",
	"2026-05-01T10:00:00.500Z  t1  attempt 1/3 · retrying in 4s · rate limited",
	"2026-05-01T10:00:00.750Z  t1  attempt 1/2 · retrying now · answer broke the output contract at json-parse",
	"2026-05-01T10:00:01.000Z  t1  turn completed",
}

func TestTailPrintsALogInUseAsDescribeLines(t *testing.T) {
	path, _ := writeLog(t, session...) // the writer keeps its lock
	code, stdout, stderr := runCmd(t.Context(), "", "tail", "-follow=false", path)
	if code != exitOK || stderr != "" {
		t.Fatalf("status %d, stderr %q", code, stderr)
	}
	if got, want := stdout, strings.Join(sessionLines, "\n")+"\n"; got != want {
		t.Errorf("tail printed:\n%s\nwant:\n%s", got, want)
	}
}

// fastPoll makes tail and view look at their log every millisecond, so
// a test that appends to the log sees the command print it soon; the test
// waits for what it expects, never for a time.
func fastPoll(t *testing.T) {
	old := pollEvery
	pollEvery = time.Millisecond
	t.Cleanup(func() { pollEvery = old })
}

// lineWriter is a command's stdout that a test reads while the command
// runs: waitLines blocks until it holds n lines.
type lineWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{} // closed and replaced on each write
}

func newLineWriter() *lineWriter { return &lineWriter{wrote: make(chan struct{})} }

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	close(w.wrote)
	w.wrote = make(chan struct{})
	return w.buf.Write(p)
}

// waitLines returns the output once it holds at least n lines, or fails
// the test when ctx ends first.
func (w *lineWriter) waitLines(ctx context.Context, t *testing.T, n int) string {
	t.Helper()
	for {
		w.mu.Lock()
		out, wrote := w.buf.String(), w.wrote
		w.mu.Unlock()
		if strings.Count(out, "\n") >= n {
			return out
		}
		select {
		case <-wrote:
		case <-ctx.Done():
			t.Fatalf("waiting for %d lines, have %q", n, out)
		}
	}
}

// bounded is the test's context, ended after a minute to fail a stuck
// test; not a sleep.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestTailFollowsTheLogAsItGrows(t *testing.T) {
	fastPoll(t)
	path, s := writeLog(t, session[:2]...)
	ctx, cancel := context.WithCancel(bounded(t))
	out := newLineWriter()
	var errb bytes.Buffer
	done := make(chan int)
	go func() { done <- run(ctx, []string{"tail", path}, nil, out, &errb) }()

	if got, want := out.waitLines(ctx, t, 2), strings.Join(sessionLines[:2], "\n")+"\n"; got != want {
		t.Errorf("before the log grew:\n%s\nwant:\n%s", got, want)
	}
	appendEvents(t, s, session[2:]...) // while tail runs
	if got, want := out.waitLines(ctx, t, 4), strings.Join(sessionLines, "\n")+"\n"; got != want {
		t.Errorf("after the log grew:\n%s\nwant:\n%s", got, want)
	}
	cancel() // as Ctrl-C does
	if code := <-done; code != exitOK || errb.Len() != 0 {
		t.Errorf("interrupted tail: status %d, stderr %q; want 0", code, errb.String())
	}
}

func TestTailWaitsForAHalfWrittenLine(t *testing.T) {
	fastPoll(t)
	path, s := writeLog(t, session[:1]...)
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	appendEvents(t, s, session[1:3]...)
	all, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	rest := all[len(whole):]
	second := rest[:bytes.IndexByte(rest, '\n')+1]
	// The file as a writer leaves it mid-write: half of the second line.
	if err := os.WriteFile(path, all[:len(whole)+len(second)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runCmd(t.Context(), "", "tail", "-follow=false", path)
	if code != exitOK || stdout != sessionLines[0]+"\n" {
		t.Errorf("with a half-written line: status %d, stdout %q; want only the whole record", code, stdout)
	}

	ctx, cancel := context.WithCancel(bounded(t))
	defer cancel()
	out := newLineWriter()
	done := make(chan int)
	go func() { done <- run(ctx, []string{"tail", path}, nil, out, io.Discard) }()
	out.waitLines(ctx, t, 1)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The writer finishes the line, then writes the next record: tail
	// prints each once, whole, in order.
	f.Write(rest[len(second)/2:])
	f.Close()
	if got, want := out.waitLines(ctx, t, 3), strings.Join(sessionLines[:3], "\n")+"\n"; got != want {
		t.Errorf("once the line was finished:\n%s\nwant:\n%s", got, want)
	}
	cancel()
	<-done
}

func TestTailRefusesBadArgumentsAndDamagedLogs(t *testing.T) {
	path, s := writeLog(t, session...)
	s.Close()
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(good), "\n")
	damaged := write(t, "damaged.ndjson", lines[0]+"not a record\n"+lines[2])
	gap := write(t, "gap.ndjson", lines[0]+lines[2])
	hugeTail := write(t, "huge.ndjson", string(good)+strings.Repeat("x", 16<<20))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no log", []string{"tail"}, "want one LOG, got 0"},
		{"two logs", []string{"tail", path, path}, "got 2"},
		{"a bad flag value", []string{"tail", "-follow=maybe", path}, "follow"},
		{"a missing file", []string{"tail", filepath.Join(t.TempDir(), "none.ndjson")}, "no such file"},
		{"a directory", []string{"tail", t.TempDir()}, "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t.Context(), "", tt.args...)
			wantOneLineError(t, code, stdout, stderr, tt.want)
		})
	}
	// Damage is found when the log is opened (events.FollowFile): what
	// comes before it is printed, then the error.
	damagedTests := []struct {
		name  string
		args  []string
		lines int // of sessionLines printed before the error
		want  string
	}{
		{"a line that is not a record", []string{"tail", "-follow=false", damaged}, 1, "read record 2: line 2 at byte"},
		{"a gap in the sequence", []string{"tail", "-follow=false", gap}, 1, "sequence 3 where 2 was due"},
		{"a torn last line past the line bound", []string{"tail", "-follow=false", hugeTail}, len(sessionLines), "over the 16777216-byte line bound"},
		{"a torn last line past the line bound, followed", []string{"tail", hugeTail}, len(sessionLines), "over the 16777216-byte line bound"},
	}
	for _, tt := range damagedTests {
		t.Run(tt.name+" prints the records before it, then its error", func(t *testing.T) {
			code, stdout, stderr := runCmd(t.Context(), "", tt.args...)
			if want := strings.Join(sessionLines[:tt.lines], "\n") + "\n"; stdout != want {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
			}
			if code != exitUsage || !strings.HasPrefix(stderr, "enforcer: tail: events: corrupt log: ") || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.want) {
				t.Errorf("status %d, stderr %q; want %d and one line that says %q", code, stderr, exitUsage, tt.want)
			}
		})
	}
}

// Damage the writer appends while tail follows is found with the good
// records before it in one read: those are printed before the error.
func TestTailPrintsTheRecordsThatLandWithTheDamage(t *testing.T) {
	fastPoll(t)
	path, s := writeLog(t, session[:1]...)
	s.Close()
	other, s2 := writeLog(t, session...)
	s2.Close()
	all, err := os.ReadFile(other)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(all), "\n")
	ctx := bounded(t)
	out := newLineWriter()
	var errb bytes.Buffer
	done := make(chan int)
	go func() { done <- run(ctx, []string{"tail", path}, nil, out, &errb) }()
	out.waitLines(ctx, t, 1)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(lines[1] + lines[2] + "not a record\n" + lines[3])
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != exitUsage || !strings.Contains(errb.String(), "read record 4: line 4 at byte") {
		t.Errorf("status %d, stderr %q; want %d and the damaged line named", code, errb.String(), exitUsage)
	}
	if got, want := out.waitLines(ctx, t, 3), strings.Join(sessionLines[:3], "\n")+"\n"; got != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", got, want)
	}
}

// A file that is not a session log is refused by tail and view alike,
// as events.FollowFile finds it: naming its first line that is not a
// record, and why, before anything is printed or served. (One whose first
// line is a record is a damaged log: tail prints what precedes the damage.)
func TestTailAndViewRefuseAFileThatIsNotALog(t *testing.T) {
	path, s := writeLog(t, session[:1]...)
	s.Close()
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, content, want string
	}{
		{"a JSON document", `{"a":1}` + "\n", `line 1 at byte 0 is not a record: unknown record kind ""`},
		{"a line of an unknown kind", `{"seq":1,"kind":"bogus"}` + "\n", `line 1 at byte 0 is not a record: unknown record kind "bogus"`},
		{"a JSON document after a record", string(good) + `{"a":1}` + "\n", fmt.Sprintf(`line 2 at byte %d is not a record: unknown record kind ""`, len(good))},
		{"a JSON document on several lines", "{\n  \"a\": 1\n}\n", "line 1 at byte 0 is not a record: unexpected end of JSON input"},
	}
	for _, tt := range tests {
		p := write(t, "not-a-log.json", tt.content)
		for _, args := range [][]string{{"tail", "-follow=false"}, {"tail"}, {"view"}} {
			t.Run(strings.Join(args, " ")+" refuses "+tt.name, func(t *testing.T) {
				code, stdout, stderr := runCmd(bounded(t), "", append(args, p)...)
				if args[0] == "tail" && tt.name == "a JSON document after a record" {
					// A log whose first line is a record is a damaged log:
					// tail prints the record before the damage.
					if want := sessionLines[0] + "\n"; stdout != want {
						t.Errorf("stdout %q, want %q", stdout, want)
					}
					stdout = ""
				}
				wantOneLineError(t, code, stdout, stderr, tt.want)
			})
		}
	}
}

func TestViewServesTheLivePageOfALogInUse(t *testing.T) {
	path, _ := writeLog(t, session...)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int)
	go func() { done <- run(ctx, []string{"view", path}, nil, pw, &errb) }()
	url, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url = strings.TrimSpace(url)
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("view printed %q, want a loopback URL", url)
	}

	getLivePage(t, context.Background(), url)

	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for n, err := range events.ReadSSE(resp.Body) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, n.Describe(0))
		if len(got) == len(session) {
			break
		}
	}
	resp.Body.Close()
	for i, line := range sessionLines {
		if want := line[strings.LastIndex(line, "  ")+2:]; i >= len(got) || got[i] != want {
			t.Errorf("event %d = %q, want %q", i, got, want)
		}
	}

	// Any other path is not found, at once: a browser's /favicon.ico gets
	// no endless event stream.
	resp, err = http.Get(url + "favicon.ico")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /favicon.ico: %s, want 404", resp.Status)
	}

	cancel()
	if code := <-done; code != exitOK || errb.Len() != 0 {
		t.Errorf("interrupted view: status %d, stderr %q; want 0", code, errb.String())
	}
}

func TestViewRefusesBadArgumentsAndLogs(t *testing.T) {
	path, s := writeLog(t, session...)
	s.Close()
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hugeTail := write(t, "huge.ndjson", string(good)+strings.Repeat("x", 16<<20))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no log", []string{"view"}, "want one LOG, got 0"},
		{"an address for other machines", []string{"view", "-addr", "0.0.0.0:0", path}, "not a loopback address"},
		{"an address without a port", []string{"view", "-addr", "127.0.0.1", path}, "-addr"},
		{"a missing file", []string{"view", filepath.Join(t.TempDir(), "none.ndjson")}, "no such file"},
		{"a torn last line past the line bound", []string{"view", hugeTail}, "over the 16777216-byte line bound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t.Context(), "", tt.args...)
			wantOneLineError(t, code, stdout, stderr, tt.want)
		})
	}
}

func TestViewFollowsTheLogAsItGrows(t *testing.T) {
	fastPoll(t)
	path, s := writeLog(t, session[:2]...)
	ctx, cancel := context.WithCancel(bounded(t))
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int)
	go func() { done <- run(ctx, []string{"view", path}, nil, pw, io.Discard) }()
	url, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", strings.TrimSpace(url), nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// One response carries the records already in the file and then
	// those appended while it is open, each once.
	var got []string
	for n, err := range events.ReadSSE(resp.Body) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, n.Describe(0))
		if len(got) == 2 {
			appendEvents(t, s, session[2:]...) // while view runs
		}
		if len(got) == len(session) {
			break
		}
	}
	for i, line := range sessionLines {
		if want := line[strings.LastIndex(line, "  ")+2:]; i >= len(got) || got[i] != want {
			t.Errorf("event %d of %q, want %q", i, got, want)
		}
	}
	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("interrupted view: status %d", code)
	}
}

// An empty log is a session that has not started yet: view serves its
// page at once and delivers the records as the writer appends them.
func TestViewServesAnEmptyLogAndFollowsIt(t *testing.T) {
	fastPoll(t)
	path := write(t, "session.ndjson", "")
	ctx, cancel := context.WithCancel(bounded(t))
	defer cancel()
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"view", path}, nil, pw, &errb)
		pw.Close() // a view that ends without serving prints no URL
	}()
	url, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("view printed no URL (status %d, stderr %q)", <-done, errb.String())
	}
	url = strings.TrimSpace(url)

	getLivePage(t, ctx, url)

	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	appendEvents(t, openWriter(t, path), session...) // once the event stream is open
	var got []string
	for n, err := range events.ReadSSE(resp.Body) {
		if err != nil {
			t.Fatal(err)
		}
		if got = append(got, n.Describe(0)); len(got) == len(session) {
			break
		}
	}
	for i, line := range sessionLines {
		if want := line[strings.LastIndex(line, "  ")+2:]; i >= len(got) || got[i] != want {
			t.Errorf("event %d of %q, want %q", i, got, want)
		}
	}
	cancel()
	if code := <-done; code != exitOK || errb.Len() != 0 {
		t.Errorf("interrupted view: status %d, stderr %q; want 0", code, errb.String())
	}
}

func TestTailPrintsNoControlCharacterFromTheLog(t *testing.T) {
	esc := "\x1b]0;owned\x07\x1b[2J" // sets the terminal's title, clears its screen
	path, _ := writeLog(t, events.TurnStarted{TurnID: "t1"},
		events.SchemaExhausted{TurnID: "t1", Attempt: 1, Iteration: 1, Stage: "schema-validate", Error: "x", BrokenBy: esc},
		events.TurnRetry{TurnID: "t1", Attempt: 1, NextAttempt: 2, MaxAttempts: 2, Kind: events.RetryCorrective, Reason: esc})
	code, stdout, stderr := runCmd(t.Context(), "", "tail", "-follow=false", path)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if strings.ContainsAny(stdout, "\x1b\x07") || !strings.Contains(stdout, "broken by ]0;owned[2J") {
		t.Errorf("tail printed %q, want the log's text without its control characters", stdout)
	}
}

func TestViewRefusesARequestForAnotherHost(t *testing.T) {
	path, _ := writeLog(t, session...)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int)
	go func() { done <- run(ctx, []string{"view", path}, nil, pw, &errb) }()
	url, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url = strings.TrimSpace(url)
	port := url[strings.LastIndex(url, ":")+1 : len(url)-1]
	for _, tc := range []struct {
		host string
		want int
	}{
		{"127.0.0.1:" + port, http.StatusOK},
		{"localhost:" + port, http.StatusOK},
		{"LocalHost:" + port, http.StatusOK},
		{"[::1]:" + port, http.StatusOK},
		{"evil.example:" + port, http.StatusForbidden}, // a page whose name was rebound to 127.0.0.1
		{"evil.example", http.StatusForbidden},
		{"localhost.evil.example:" + port, http.StatusForbidden},
		{"127.0.0.1", http.StatusForbidden},
		{"localhost:1", http.StatusForbidden},
	} {
		req, _ := http.NewRequest("GET", url, nil)
		req.Host = tc.host
		req.Header.Set("Accept", "text/html")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Host %q: %s, want %d", tc.host, resp.Status, tc.want)
		}
		if tc.want == http.StatusForbidden && strings.Contains(string(body), "turns") {
			t.Errorf("Host %q: the refusal holds the page", tc.host)
		}
	}
	cancel()
	if code := <-done; code != exitOK || errb.Len() != 0 {
		t.Errorf("interrupted view: status %d, stderr %q; want 0", code, errb.String())
	}
}

// check's message is the one a run's ledger sends: the same answer judged
// by an enforce.Ledger after attempt-1 other failed answers.
func TestCheckSaysWhatALedgerSends(t *testing.T) {
	schemaPath := write(t, "schema.json", citySchema)
	schema, err := enforce.CompileSchema([]byte(citySchema))
	if err != nil {
		t.Fatal(err)
	}
	earlier := []string{`{"city":1}`, `{"city":"Oslo","days":"two"}`} // failed answers with other issues than the judged one
	for _, answer := range []string{`{"days":0}`, `{"city":"Oslo"} thanks!`, `{"city":"Oslo","days":2}`} {
		for retries := 1; retries <= 3; retries++ {
			for attempt := 1; attempt <= retries; attempt++ {
				l, err := enforce.NewLedger(schema, retries)
				if err != nil {
					t.Fatal(err)
				}
				for i := range attempt - 1 {
					if v := l.Judge(t.Context(), enforce.Answer{Iteration: i + 1, Given: earlier[i]}); v.Corrective == "" {
						t.Fatalf("the ledger did not retry %q: %+v", earlier[i], v)
					}
				}
				v := l.Judge(t.Context(), enforce.Answer{Iteration: attempt, Given: answer})
				want, wantCode := "pass\n", exitOK
				if v.Err != nil || v.Row.Outcome != enforce.OutcomePassed {
					want, wantCode = v.Corrective, exitFail
				}
				code, stdout, stderr := runCmd(t.Context(), answer, "check", "-attempt", strconv.Itoa(attempt), "-retries", strconv.Itoa(retries), schemaPath, "-")
				if code != wantCode || strings.TrimSuffix(stdout, "\n") != strings.TrimSuffix(want, "\n") || stderr != "" {
					t.Errorf("check -attempt %d -retries %d of %s: status %d, stdout:\n%s\nstderr %q\nwant %d and the ledger's message:\n%s",
						attempt, retries, answer, code, stdout, stderr, wantCode, want)
				}
			}
		}
	}
}

func TestCheckAppliesTheRepairsItIsGiven(t *testing.T) {
	schemaPath := write(t, "schema.json", citySchema)
	fenced := write(t, "fenced.txt", "Sure:\n```json\n{city: 'Oslo', days: '2',}\n```")
	t.Run("without -repair the answer fails as written", func(t *testing.T) {
		code, stdout, _ := runCmd(t.Context(), "", "check", schemaPath, fenced)
		if code != exitFail || strings.Contains(stdout, "repaired") {
			t.Errorf("status %d, stdout:\n%s\nwant 1 and no repair", code, stdout)
		}
	})
	t.Run("with every repair it passes, saying what was mended", func(t *testing.T) {
		code, stdout, stderr := runCmd(t.Context(), "", "check", "-repair", "all", schemaPath, fenced)
		want := "repaired: syntax,prose,coerce\nmended answer:\n{\"city\": \"Oslo\", \"days\": 2}\npass\n"
		if code != exitOK || stdout != want || stderr != "" {
			t.Errorf("status %d, stdout:\n%s\nstderr %q; want 0 and:\n%s", code, stdout, stderr, want)
		}
	})
	t.Run("a mended answer that still fails exits 1 with the corrective message", func(t *testing.T) {
		bad := write(t, "bad.txt", "```\n{\"days\": 0}\n```")
		code, stdout, _ := runCmd(t.Context(), "", "check", "-repair", "fence,prose", schemaPath, bad)
		if code != exitFail || !strings.HasPrefix(stdout, "repaired: fence\n") || !strings.Contains(stdout, "removed a markdown fence") {
			t.Errorf("status %d, stdout:\n%s\nwant 1, the repair named and the corrective message", code, stdout)
		}
	})
	t.Run("an unknown repair is a usage error", func(t *testing.T) {
		code, stdout, stderr := runCmd(t.Context(), "", "check", "-repair", "fence,magic", schemaPath, fenced)
		wantOneLineError(t, code, stdout, stderr, "magic")
	})
}

// getLivePage asks url for the live page as a browser does and fails the
// test unless it gets it.
func getLivePage(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Accept", "text/html")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), `<main id="turns">`) {
		t.Errorf("a browser got %s and no live page", resp.Status)
	}
}
