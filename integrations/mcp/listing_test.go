package mcp_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// refChain is a valid schema of n $defs, each a $ref to the one before,
// the root a $ref to the last: no fan-out, one check a link.
func refChain(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","$defs":{"d0":{"type":"object"}`)
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, `,"d%d":{"$ref":"#/$defs/d%d"}`, i, i-1)
	}
	fmt.Fprintf(&b, `},"$ref":"#/$defs/d%d"}`, n-1)
	return json.RawMessage(b.String())
}

// A hostile server's output schema costs the listing what its size says:
// a 4,000-link chain of $refs (126 KiB) was compiled in quadratic memory,
// 605 MiB and seconds, stalling every agent that listed the server's
// tools; it now costs a few MiB.
func TestAChainOfRefsInAnOutputSchemaIsListedAtLinearCost(t *testing.T) {
	s := newServer(nil)
	rawTool(s, "chained", refChain(4000), results(&mcp.CallToolResult{}))
	cs := connect(t, s)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ts := tools(t, cs)
	runtime.ReadMemStats(&after)
	if len(ts) != 1 {
		t.Fatalf("listed %d tools, want 1", len(ts))
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("listing one tool with a 4,000-link chain allocated %d MiB, want at most 64", got>>20)
	} else {
		t.Logf("listing allocated %.1f MiB", float64(got)/(1<<20))
	}
}
