package main

import (
	"bytes"
	"context"
	"testing"
)

// TestElements runs the example: each line is taken when its closing
// byte arrives, long before its answer ends; the failed answer is cut at
// its third line, and the retry is announced before its first line.
func TestElements(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}

const want = `attempt 1 line 0: {Item:tea Qty:2} (the model had sent 32 of 127 bytes)
attempt 1 line 1: {Item:milk Qty:1} (the model had sent 56 of 127 bytes)
attempt 2 begins: the lines shown before are void
attempt 2 line 0: {Item:tea Qty:2} (the model had sent 32 of 102 bytes)
attempt 2 line 1: {Item:milk Qty:1} (the model had sent 56 of 102 bytes)
attempt 2 line 2: {Item:jam Qty:1} (the model had sent 80 of 102 bytes)

attempt ledger:
  1 retried at schema-validate /lines/2/qty, cut after 79 bytes
  2 passed

result: {Lines:[{Item:tea Qty:2} {Item:milk Qty:1} {Item:jam Qty:1}] Note:before noon}
`
