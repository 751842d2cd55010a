package main

import (
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// cityParams are a tool's parameters: a string city.
const cityParams = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`

func TestCheckToolJudgesACallsArgumentsAsTheAgentDoes(t *testing.T) {
	params := write(t, "params.json", cityParams)
	s, err := enforce.CompileSchema([]byte(cityParams))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("arguments that keep the parameters pass", func(t *testing.T) {
		code, stdout, stderr := runCmd(t.Context(), "", "check", "-tool", "lookup", params, write(t, "args.json", `{"city":"Oslo"}`))
		if code != exitOK || stdout != "pass\n" || stderr != "" {
			t.Errorf("status %d, stdout %q, stderr %q; want 0 and pass", code, stdout, stderr)
		}
	})
	t.Run("arguments that break them get the tool message the model would", func(t *testing.T) {
		l, _ := enforce.NewCallLedger(0, 0)
		want := l.Judge(s, enforce.Call{Tool: "lookup", Arguments: `{"city":3}`}).Message
		code, stdout, _ := runCmd(t.Context(), `{"city":3}`, "check", "-tool", "lookup", params, "-")
		if code != exitFail || strings.TrimSuffix(stdout, "\n") != strings.TrimSuffix(want, "\n") || !strings.Contains(stdout, `"lookup"`) {
			t.Errorf("status %d, stdout:\n%s\nwant 1 and the ledger's tool message:\n%s", code, stdout, want)
		}
	})
	t.Run("with -repair, mended arguments pass, saying what was mended", func(t *testing.T) {
		code, stdout, _ := runCmd(t.Context(), `"{\"city\":\"Oslo\"}"`, "check", "-tool", "lookup", "-repair", "all", params, "-")
		want := "repaired: coerce\nmended arguments:\n{\"city\":\"Oslo\"}\npass\n"
		if code != exitOK || stdout != want {
			t.Errorf("status %d, stdout:\n%s\nwant 0 and:\n%s", code, stdout, want)
		}
	})
	t.Run("-tool with a kind's flags is a usage error", func(t *testing.T) {
		code, stdout, stderr := runCmd(t.Context(), "", "check", "-tool", "lookup", "-text", write(t, "args.json", `{}`))
		wantOneLineError(t, code, stdout, stderr, "-tool")
	})
}
