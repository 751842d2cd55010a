package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/enforcer-go/enforcer/events"
)

// tail is `enforcer tail`: one line per record, then more as the file
// grows, until ctx ends (which is not an error) or -follow=false and the
// end is reached.
func tail(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("tail")
	follow := fs.Bool("follow", true, "keep printing records as they are appended, until interrupted")
	files, err := parse(fs, args, "LOG")
	if err != nil {
		return err
	}
	var last int64
	var session string
	log, err := followLog(files[0])
	if err != nil {
		salvage(files[0], err, &last, &session, stdout)
		return fmt.Errorf("tail: %w", err)
	}
	defer log.Close()
	for {
		for rec, err := range log.Records(last) {
			if err == nil && session != "" && rec.Stream != session {
				err = fmt.Errorf("record %d belongs to session %q, not %q", rec.Sequence, rec.Stream, session)
			}
			if err != nil {
				salvage(files[0], err, &last, &session, stdout)
				return fmt.Errorf("tail: %w", err)
			}
			if _, err := fmt.Fprintln(stdout, describe(rec)); err != nil {
				return fmt.Errorf("tail: %w", err)
			}
			last, session = rec.Sequence, rec.Stream
		}
		if !*follow {
			return nil
		}
		if err := log.Wait(ctx, last); err != nil {
			if ctx.Err() != nil {
				return nil // interrupted
			}
			salvage(files[0], err, &last, &session, stdout)
			return fmt.Errorf("tail: %w", err)
		}
	}
}

// salvage prints the records that precede the damage err names, after
// record *last, before tail reports err. events.FollowFile refuses a log
// whose damage it finds while opening it, and its Records yield the error
// in place of all it read with the damage: a log torn past the line bound
// by a crash, or damaged in its middle, would show nothing of the good
// records before. err names the record it could not read
// (events.Error.Seq); the lines before it were each read as a record
// already, so they are read again here the same way (one JSON record a
// line, events.Record's own decoding) and stop at the first that is not
// what it was (the file changed since).
func salvage(name string, err error, last *int64, session *string, stdout io.Writer) {
	var e *events.Error
	if !errors.As(err, &e) || !errors.Is(err, events.ErrCorrupt) || e.Seq <= *last+1 {
		return
	}
	f, ferr := os.Open(name)
	if ferr != nil {
		return
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	for seq := int64(1); seq < e.Seq; seq++ {
		line, rerr := readLogLine(br)
		if rerr != nil {
			return
		}
		if seq <= *last {
			continue
		}
		var rec events.Record
		if rec.UnmarshalJSON(line) != nil || rec.Sequence != seq || *session != "" && rec.Stream != *session {
			return
		}
		if _, werr := fmt.Fprintln(stdout, describe(rec)); werr != nil {
			return
		}
		*last, *session = rec.Sequence, rec.Stream
	}
}

// maxLogLine is the file log's line bound (16 MiB): a line before the
// damage kept it, so salvage reads none longer.
const maxLogLine = 16 << 20

// readLogLine reads one complete line of at most maxLogLine bytes, without
// its newline.
func readLogLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > maxLogLine {
			return nil, errors.New("line too long")
		}
		line = append(line, frag...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil:
			return nil, err
		}
		return line[:len(line)-1], nil
	}
}

// describe is a record's line: when, which turn, and what happened in
// Describe's words.
func describe(rec events.Record) string {
	n, err := rec.Notification()
	if err != nil { // a record that decoded always folds
		return fmt.Sprintf("record %d: %v", rec.Sequence, err)
	}
	var p struct {
		TurnID string `json:"turnId"`
	}
	_ = json.Unmarshal(n.Params, &p)
	return rec.Time.UTC().Format("2006-01-02T15:04:05.000Z07:00") + "  " + p.TurnID + "  " + n.Describe(0)
}
