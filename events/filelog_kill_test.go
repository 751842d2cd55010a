//go:build unix

package events

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// killWriterEnv names the directory a re-executed test binary writes its
// logs to, as the writer TestAWriterKilledMidAppendLosesNoAcknowledgedRecord kills.
const killWriterEnv = "ENFORCER_TEST_KILLED_WRITER_DIR"

// killLogs is how many logs the writer appends to at once, so their
// appends share syncs.
const killLogs = 4

// killReason is the reason of record seq of log i: the reader checks
// each record is the one written.
func killReason(i int, seq int64) string { return fmt.Sprintf("log %d record %d", i, seq) }

// runKilledWriter is the writer process: it appends to killLogs logs in
// dir at once, without end, and prints "i seq" once each Append
// returned. It ends when the test kills it, or when its output is gone.
func runKilledWriter(dir string) {
	var out sync.Mutex
	var wg sync.WaitGroup
	for i := range killLogs {
		l, err := OpenFile(filepath.Join(dir, fmt.Sprintf("s%d.ndjson", i)))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		s, err := NewStream(fmt.Sprintf("session-%d", i), l)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := l.Last() + 1; seq < 1<<20; seq++ {
				ev := TurnRetry{TurnID: fmt.Sprintf("t%d", seq/6), Attempt: 1, NextAttempt: 2, MaxAttempts: 3,
					Reason: killReason(i, seq) + strings.Repeat(" padding", 15)}
				if _, err := s.Append(ev); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(2)
				}
				out.Lock()
				_, err := fmt.Printf("%d %d\n", i, seq) // os.Stdout is not buffered
				out.Unlock()
				if err != nil {
					os.Exit(0) // the test is gone
				}
			}
		}()
	}
	wg.Wait()
	os.Exit(0)
}

// A writer process killed with SIGKILL while it appends, three times
// over the same logs: each time the logs open, and every record the
// writer was told was stored is there, in order, as written.
func TestAWriterKilledMidAppendLosesNoAcknowledgedRecord(t *testing.T) {
	if dir := os.Getenv(killWriterEnv); dir != "" {
		runKilledWriter(dir)
		return
	}
	dir := t.TempDir()
	acked := make([]int64, killLogs) // the last seq acknowledged, by log
	for round := range 3 {
		killWriter(t, dir, 50+round*37, acked)
		for i := range killLogs {
			l, err := OpenFile(filepath.Join(dir, fmt.Sprintf("s%d.ndjson", i)))
			if err != nil {
				t.Fatalf("round %d: log %d does not open after the kill: %v", round, i, err)
			}
			var seq int64
			for rec, err := range l.Records(0) {
				if err != nil {
					t.Fatalf("round %d: log %d: %v", round, i, err)
				}
				seq++
				r, ok := rec.Event.(TurnRetry)
				if rec.Sequence != seq || !ok || !strings.HasPrefix(r.Reason, killReason(i, seq)+" ") {
					t.Fatalf("round %d: log %d: record %d is %d %#v, want the one written", round, i, seq, rec.Sequence, rec.Event)
				}
			}
			if seq < acked[i] {
				t.Errorf("round %d: log %d holds %d records; %d were acknowledged", round, i, seq, acked[i])
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// killWriter starts the writer on dir, kills it with SIGKILL once it has
// acknowledged n more records, waits for it to end, and raises acked to
// what it acknowledged, checking it did so in order.
func killWriter(t *testing.T, dir string, n int, acked []int64) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestAWriterKilledMidAppendLosesNoAcknowledgedRecord$")
	cmd.Env = append(os.Environ(), killWriterEnv+"="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := false
	defer func() {
		if !waited { // a failed check: the writer must not outlive the test
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	// A log's first record this round may follow records the last writer
	// stored but was killed before it said so.
	started := make([]bool, killLogs)
	sc := bufio.NewScanner(stdout)
	for seen := 0; sc.Scan(); seen++ {
		if seen == n {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
		}
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			t.Fatalf("writer printed %q", sc.Text())
		}
		i, err1 := strconv.Atoi(f[0])
		seq, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil || i < 0 || i >= killLogs || seq <= acked[i] || started[i] && seq != acked[i]+1 {
			t.Fatalf("writer printed %q after acknowledging record %d of log %d", sc.Text(), acked[i], i)
		}
		acked[i], started[i] = seq, true
	}
	err = cmd.Wait() // after reading everything it printed
	waited = true
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != -1 {
		t.Fatalf("writer ended with %v, want killed; it said: %s", err, stderr.String())
	}
}
