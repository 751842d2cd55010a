package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/eval"
)

func TestEvalTablesCountAnAnswerThatNeverCameApart(t *testing.T) {
	rep := &eval.Report{Groups: []eval.Group{{
		Group: "g", Records: 3, Runs: 3, PassedAsWritten: 1, PassedAfterRepair: 1, PassedFirstTry: 1, PassedAfterRetry: 1,
		Exhausted: 1, NoAnswer: 1, Failed: map[enforce.Stage]int{enforce.StageNoAnswer: 1, enforce.StageJSONParse: 1},
	}}}
	var md, live bytes.Buffer
	writeMarkdown(&md, rep)
	writeLiveTable(&live, rep)
	if lines := strings.Split(md.String(), "\n"); !strings.HasSuffix(lines[0], "| no answer |") || !strings.HasSuffix(lines[2], " 1 |") {
		t.Errorf("-md =\n%s\nwant a no answer column counting 1", md.String())
	}
	if lines := strings.Split(live.String(), "\n"); !strings.Contains(lines[0], "exhausted  no answer") || len(strings.Fields(lines[1])) != len(strings.Fields(lines[0]))-3 {
		t.Errorf("live table =\n%s\nwant a no answer column", live.String())
	}
}
