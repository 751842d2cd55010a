package events

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/internal/proc"
)

// withPollTick replaces the poll ticker of a waiting FollowFile reader.
func withPollTick(tick <-chan time.Time) FileOption {
	return fileOption(func(o *fileOptions) { o.pollTick = tick })
}

// followPair returns the writer's stream over a new file log and a stream
// that follows the same file read-only, polling when tick fires.
func followPair(t *testing.T, tick <-chan time.Time) (w, r *Stream, path string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "session.ndjson")
	w = openStream(t, path)
	fl, err := FollowFile(path, withPollTick(tick))
	if err != nil {
		t.Fatal(err)
	}
	r, err = Follow(testSession, fl)
	if err != nil {
		fl.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return w, r, path
}

func TestAFollowingStreamDeliversAnotherWritersRecordsLiveInOrderOnce(t *testing.T) {
	tick := make(chan time.Time)
	w, r, _ := followPair(t, tick)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	evs := transcript()
	got := make(chan []Notification, 1)
	go func() {
		var ns []Notification
		for n, err := range r.Subscribe(ctx, "") {
			if err != nil {
				t.Errorf("subscriber: %v", err)
				break
			}
			if ns = append(ns, n); len(ns) == len(evs) {
				break
			}
		}
		got <- ns
	}()
	turn := make(chan Notification, 1)
	go func() {
		n, err := r.WaitTurn(ctx, "t2")
		if err != nil {
			t.Errorf("WaitTurn: %v", err)
		}
		turn <- n
	}()
	var want []Notification
	for _, ev := range evs {
		n, err := w.Append(ev)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, n)
		tick <- time.Now() // the reader's next poll: a blocked send until it waits
	}
	ns := <-got
	if len(ns) != len(want) {
		t.Fatalf("the follower delivered %d notifications, want %d", len(ns), len(want))
	}
	for i := range want {
		if g, w := frameBytes(t, ns[i]), frameBytes(t, want[i]); string(g) != string(w) {
			t.Errorf("notification %d:\n got %s\nwant %s", i+1, g, w)
		}
	}
	if n := <-turn; n.Method != "turn/completed" || !strings.Contains(string(n.Params), `"turnId":"t2"`) {
		t.Errorf("WaitTurn(t2) on the follower = %s %s", n.Method, n.Params)
	}
	if _, err := r.Append(TurnStarted{TurnID: "t9"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("Append on a following stream = %v, want ErrInvalid", err)
	}
}

func TestAFollowingStreamResumesFromACursorOfTheWritersStream(t *testing.T) {
	tick := make(chan time.Time)
	w, _, path := followPair(t, tick)
	ns := appendStarts(t, w, 4)
	fl, err := FollowFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Follow(testSession, fl)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var seqs []int64
	for n, err := range r.Subscribe(t.Context(), ns[1].Cursor()) {
		if err != nil {
			t.Fatal(err)
		}
		if seqs = append(seqs, seqOf(t, n)); len(seqs) == 2 {
			break
		}
	}
	if !slices.Equal(seqs, []int64{3, 4}) {
		t.Errorf("resumed after record 2 with %v, want [3 4]", seqs)
	}
}

func TestAFollowingStreamClosesWhenItsLogCannotBeRead(t *testing.T) {
	tick := make(chan time.Time)
	w, r, path := followPair(t, tick)
	appendStarts(t, w, 3)
	tick <- time.Now() // the reader reads the three records
	n := 0
	for _, err := range r.Subscribe(t.Context(), "") {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 3 {
			break
		}
	}
	if err := os.Truncate(path, 10); err != nil {
		t.Fatal(err)
	}
	select { // the reader may see the shrink before this poll
	case tick <- time.Now():
	case <-r.done:
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := r.WaitTurn(ctx, "never"); err == nil {
		t.Fatal("WaitTurn returned without a terminal")
	} else if !errors.Is(err, ErrClosed) || !errors.Is(err, ErrCorrupt) {
		t.Errorf("WaitTurn after the file shrank = %v, want ErrClosed wrapping ErrCorrupt", err)
	}
}

// A viewer of any log follows it without being told its session: the
// stream over an empty file holds nothing until the writer's first
// record, then delivers every record as the writer's stream does.
func TestAFollowingStreamWithNoIDTakesTheSessionOfItsFirstRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.ndjson")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tick := make(chan time.Time)
	fl, err := FollowFile(path, withPollTick(tick))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Follow("", fl)
	if err != nil {
		fl.Close()
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, other := appendAll(t, transcript()[:1]) // another stream's first record
	for _, err := range r.Subscribe(ctx, other[0].Cursor()) {
		if !errors.Is(err, ErrStale) {
			t.Errorf("Subscribe from a cursor before any record = %v, want ErrStale", err)
		}
		break
	}

	evs := transcript()
	got := make(chan []Notification, 1)
	go func() {
		var ns []Notification
		for n, err := range r.Subscribe(ctx, "") {
			if err != nil {
				t.Errorf("subscriber: %v", err)
				break
			}
			if ns = append(ns, n); len(ns) == len(evs) {
				break
			}
		}
		got <- ns
	}()
	writer := openStream(t, path)
	var want []Notification
	for _, ev := range evs {
		n, err := writer.Append(ev)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, n)
		tick <- time.Now() // the reader's next poll: a blocked send until it waits
	}
	ns := <-got
	if len(ns) != len(want) {
		t.Fatalf("the follower delivered %d notifications, want %d", len(ns), len(want))
	}
	for i := range want {
		if g, w := frameBytes(t, ns[i]), frameBytes(t, want[i]); string(g) != string(w) {
			t.Errorf("notification %d:\n got %s\nwant %s", i+1, g, w)
		}
	}
	// Resuming from a cursor works once the session is known.
	var seqs []int64
	for n, err := range r.Subscribe(t.Context(), ns[len(ns)-3].Cursor()) {
		if err != nil {
			t.Fatal(err)
		}
		if seqs = append(seqs, seqOf(t, n)); len(seqs) == 2 {
			break
		}
	}
	if n := int64(len(ns)); !slices.Equal(seqs, []int64{n - 1, n}) {
		t.Errorf("resumed with %v, want [%d %d]", seqs, n-1, n)
	}
}

// The session taken from the first record is the log's: a record of
// another one after it is corruption, as it is for a stream told its id.
func TestAFollowingStreamWithNoIDRefusesALogOfTwoSessions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.ndjson")
	writeTurns(t, path, "t1")
	other, err := NewStream("another-session", NewMemoryLog())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	appendStarts(t, other, 2)
	for rec, err := range other.log.Records(1) {
		if err != nil {
			t.Fatal(err)
		}
		line, err := rec.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		appendBytes(t, path, append(line, '\n'))
	}
	fl, err := FollowFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Follow("", fl)
	if err == nil {
		r.Close()
	} else {
		fl.Close()
	}
	var e *Error
	if !errors.Is(err, ErrCorrupt) || !errors.As(err, &e) || e.Seq != 2 {
		t.Errorf("Follow of a log whose record 2 is of another session = %v, want ErrCorrupt naming record 2", err)
	}
}

func TestAFollowingStreamRefusesANilLogAndItsCloseStopsFollowing(t *testing.T) {
	if _, err := Follow(testSession, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("Follow(nil) = %v, want ErrInvalid", err)
	}
	tick := make(chan time.Time)
	_, r, _ := followPair(t, tick)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.followed:
	default:
		t.Error("Close returned while the follower still ran")
	}
}

// The multi-process test: a child process (this test binary, re-run)
// writes turns to a file log; this process serves SSE over a stream that
// follows the file read-only; an HTTP client sees every frame once, live.
func TestSSEOverAFollowedFileDeliversAnotherProcesssTurns(t *testing.T) {
	if path := os.Getenv("EVENTS_FOLLOW_WRITER"); path != "" {
		followWriter(path)
		return
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	path := filepath.Join(t.TempDir(), "session.ndjson")
	l, err := OpenFile(path) // creates the file the reader opens
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	fl, err := FollowFile(path, PollEvery(5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Follow(testSession, fl)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	srv := httptest.NewServer(r)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()

	cmd := proc.ForTest(t, os.Args[0], "-test.run=^TestSSEOverAFollowedFileDeliversAnotherProcesssTurns$")
	cmd.Env = append(os.Environ(), "EVENTS_FOLLOW_WRITER="+path)
	out, err := cmd.CombinedOutput() // the child has written every turn when it exits
	if err != nil {
		t.Fatalf("the writer process failed: %v\n%s", err, out)
	}
	_, want := appendAll(t, transcript()) // the same events, the same clock
	var got []Notification
	for n, err := range ReadSSE(resp.Body) {
		if err != nil {
			t.Fatal(err)
		}
		if got = append(got, n); len(got) == len(want) {
			break
		}
	}
	if len(got) != len(want) {
		t.Fatalf("the client saw %d frames, want %d", len(got), len(want))
	}
	for i := range want {
		if g, w := frameBytes(t, got[i]), frameBytes(t, want[i]); string(g) != string(w) {
			t.Errorf("frame %d:\n got %s\nwant %s", i+1, g, w)
		}
	}
}

// followWriter is the writer process of the multi-process tests: it
// appends the transcript with the test clock, one record per line of
// stdin when EVENTS_FOLLOW_STEP is set (printing each sequence number
// once acknowledged), else all at once.
func followWriter(path string) {
	l, err := OpenFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	s, err := NewStream(testSession, l, WithClock(fixedClock()))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	step := os.Getenv("EVENTS_FOLLOW_STEP") != ""
	in := bufio.NewScanner(os.Stdin)
	evs := transcript()
	for i := 0; ; i++ {
		if step && !in.Scan() {
			break
		}
		if !step && i == len(evs) {
			break
		}
		n, err := s.Append(evs[i%len(evs)])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if step {
			seq, _ := parseCursor(testSession, n.Cursor())
			fmt.Println(strconv.FormatInt(seq, 10))
		}
	}
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(0)
}

// writeTurns writes a session of one TurnStarted per id at path, all at
// one instant, so that two sessions of ids of one length have records of
// the same lengths.
func writeTurns(t *testing.T, path string, ids ...string) {
	t.Helper()
	l, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	s, err := NewStream(testSession, l, WithClock(func() time.Time { return at }))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if _, err := s.Append(TurnStarted{TurnID: id}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
}

func TestFollowFileRefusesAFileRewrittenInPlaceWithAnotherLongerHistory(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.ndjson"), filepath.Join(dir, "b.ndjson")
	writeTurns(t, a, "t1", "t2")
	writeTurns(t, b, "t1", "t3", "t4")
	f, err := FollowFile(a)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Last() != 2 {
		t.Fatalf("Last = %d, want 2", f.Last())
	}
	other, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(a, other, 0o644); err != nil { // rewritten in place between two checks
		t.Fatal(err)
	}
	var ids []string
	for rec, err := range f.Records(0) {
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("reading the rewritten file: %v, want ErrCorrupt", err)
			}
			return
		}
		if ts, ok := rec.Event.(TurnStarted); ok {
			ids = append(ids, ts.TurnID)
		}
	}
	t.Errorf("the rewritten file was read without an error, as %v", ids)
}

func TestFollowFileReadsWhatTheWriterAppendsAfterTheRecordsItRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.ndjson")
	writeTurns(t, path, "t1", "t2")
	f, err := FollowFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i, id := range []string{"t3", "t4"} { // the check of the last record passes on an append
		l, err := OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewStream(testSession, l)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Append(TurnStarted{TurnID: id}); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if got, want := f.Last(), int64(3+i); got != want {
			t.Fatalf("Last after appending %s = %d, want %d", id, got, want)
		}
	}
	n := 0
	for _, err := range f.Records(0) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 4 {
		t.Errorf("read %d records, want 4", n)
	}
}

// appendBytes appends b to the file at path, as a writer's torn or
// foreign write would.
func appendBytes(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

// A line still being written is read once: each later check reads only
// the bytes added since, and none when nothing was. A last line that
// reaches the line bound without its newline can never become a record:
// it is corruption, not a record in progress.
func TestFollowFileReadsATornLastLineOnceAndRefusesOnePastTheBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.ndjson")
	writeTurns(t, path, "t1", "t2")
	f, err := FollowFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fl := f.(*fileLog)
	const chunks = 64
	chunk := bytes.Repeat([]byte("x"), maxLine/chunks)
	for i := range chunks - 1 {
		appendBytes(t, path, chunk)
		for range 3 { // one check with new bytes, two without
			if got := f.Last(); got != 2 {
				t.Fatalf("Last with %d torn bytes = %d, want 2", (i+1)*len(chunk), got)
			}
		}
	}
	// Each chunk read once; re-reading the torn line at every check
	// would read it ~96 times over.
	torn := int64((chunks - 1) * len(chunk))
	t.Logf("%d checks read %d bytes of a %d-byte torn line", 3*(chunks-1), fl.scanned, torn)
	if bound := torn + 1024; fl.scanned > bound {
		t.Errorf("the checks read %d bytes of a %d-byte torn line, want at most %d: each should read only what is new", fl.scanned, torn, bound)
	}
	appendBytes(t, path, chunk) // the line reaches maxLine bytes, newline not counted
	for _, err := range f.Records(0) {
		if err == nil {
			continue
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Records = %v, want ErrCorrupt", err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		if err := f.Wait(ctx, 2); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Wait = %v, want ErrCorrupt", err)
		}
		return
	}
	t.Fatalf("a torn last line of %d bytes, past the %d-byte line bound, was not reported", maxLine, maxLine)
}

// A log that already ends in a torn line too long to become a record is
// refused when it is opened, by a reader and by a writer, which leaves
// the file as it is instead of cutting what it did not write.
func TestAFileLogEndingInATornLinePastTheBoundIsCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.ndjson")
	writeTurns(t, path, "t1", "t2")
	appendBytes(t, path, bytes.Repeat([]byte("x"), maxLine))
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := FollowFile(path); !errors.Is(err, ErrCorrupt) {
		if err == nil {
			f.Close()
		}
		t.Errorf("FollowFile = %v, want ErrCorrupt", err)
	}
	if l, err := OpenFile(path); !errors.Is(err, ErrCorrupt) {
		if err == nil {
			l.Close()
		}
		t.Errorf("OpenFile = %v, want ErrCorrupt", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Errorf("opening changed the file from %d bytes to %d", len(before), len(after))
	}
}
