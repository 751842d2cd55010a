package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

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
	log, err := followLog(files[0])
	if err != nil {
		return fmt.Errorf("tail: %w", err)
	}
	defer log.Close()
	var last int64
	var session string
	for {
		for rec, err := range log.Records(last) {
			if err == nil && session != "" && rec.Stream != session {
				err = fmt.Errorf("record %d belongs to session %q, not %q", rec.Sequence, rec.Stream, session)
			}
			if err != nil {
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
			return fmt.Errorf("tail: %w", err)
		}
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
