package wiretest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/internal/eventtest"
)

// Golden compares a request body with the file testdata/name, both
// indented the same way; with update set (an adapter's -update flag) it
// rewrites the file instead.
func Golden(t testing.TB, name string, body []byte, update bool) {
	t.Helper()
	var got bytes.Buffer
	if err := json.Indent(&got, body, "", "  "); err != nil {
		t.Fatal(err)
	}
	got.WriteByte('\n')
	path := filepath.Join("testdata", name)
	if update {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("request body differs from %s:\ngot:\n%s\nwant:\n%s", path, got.Bytes(), want)
	}
}

// Hang is a handler that calls arrived and then never answers: it returns
// once the client has gone. It reads the body first, so that the server
// notices the client closing the connection.
func Hang(arrived func()) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		arrived()
		<-r.Context().Done()
	})
}

// Recorder keeps every event a run records (agent.WithEvents).
type Recorder = eventtest.Recorder

// Show lists chunks one a line, for a failure's message.
func Show(cs []agent.Chunk) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "  %q call=%+v usage=%+v stop=%s/%s\n", c.Text, c.Call, c.Usage, c.Stop, c.StopRaw)
	}
	return b.String()
}
