package goopenai

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/providers/internal/openaiwiretest"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// go-openai decodes each data line alone (wiretest.Adapter.LinesAlone):
// the bound on an event holds it to a line, however long it runs.
func TestAnEndlessDataLineIsReadToItsBound(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Reply{Status: 200, Header: map[string]string{"Content-Type": "text/event-stream"},
		Events: []string{}, Body: `data: {"choices":[{"index":0,"delta":{"content":"`, Repeat: strings.Repeat("x", 1<<20), Times: 192})
	var err error
	n := wiretest.Allocated(func() {
		_, err = wiretest.Collect(New(clientAt(srv.URL), "gpt-4o-mini").GenerateStream(context.Background(), openaiwiretest.UserTurn))
	})
	var pe *agent.ProviderError
	if !errors.As(err, &pe) || !errors.Is(err, wire.ErrTooLong) || pe.Kind != events.KindUnknown || pe.HTTPStatus != 200 {
		t.Fatalf("err = %.300v, want a ProviderError of kind unknown, status 200, matching wire.ErrTooLong", err)
	}
	if max := uint64(8 * wire.MaxEventBytes); n > max {
		t.Errorf("the call allocated %d MiB, want at most %d", n>>20, max>>20)
	}
}
