package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enforcer-go/enforcer/enforce"
	enforcermcp "github.com/enforcer-go/enforcer/integrations/mcp"
)

// connectExact is connect through enforcermcp.Transport.
func connectExact(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	return connectThrough(t, s, enforcermcp.Transport)
}

func TestThroughTransportAResultIsJudgedAndShownAsTheServerSentIt(t *testing.T) {
	idSchema := json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer","maximum":9007199254740992},"role":{"enum":["user"]}}}`)
	tests := []struct {
		name, sent string
		schema     json.RawMessage
		shown      string // "" when the result must break the schema
	}{
		{"an integer past 2^53 over the maximum fails", `{"id":9007199254740993}`, idSchema, ""},
		{"a snowflake id is shown to the digit", `{"snowflake": 1234567890123456789}`, objectSchema, `{"snowflake":1234567890123456789}`},
		{"a snowflake id of a tool without a schema is shown to the digit", `{"snowflake":1234567890123456789}`, nil, `{"snowflake":1234567890123456789}`},
		{"a member written twice fails, whichever value the SDK would keep", `{"role":"admin","role":"user"}`, idSchema, ""},
		{"a result within the schema passes as sent", `{"id": 9007199254740992, "role": "user"}`, idSchema, `{"id":9007199254740992,"role":"user"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(nil)
			rawTool(s, "lookup", tt.schema, results(&mcp.CallToolResult{StructuredContent: json.RawMessage(tt.sent)}))
			ts := tools(t, connectExact(t, s))
			got, err := ts[0].Run(t.Context(), json.RawMessage(`{}`))
			if tt.shown == "" {
				var ce *enforce.CheckError
				if !errors.Is(err, enforcermcp.ErrOutputContract) || !errors.As(err, &ce) || got != "" {
					t.Errorf("Run = %q, %v; want ErrOutputContract with the issues", got, err)
				}
				return
			}
			if err != nil || got != tt.shown {
				t.Errorf("Run = %q, %v; want %q", got, err, tt.shown)
			}
		})
	}
}

func TestThroughTransportACancelledCallEndsWithItsContext(t *testing.T) {
	s := newServer(nil)
	started := make(chan struct{})
	rawTool(s, "slow", objectSchema, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	ts := tools(t, connectExact(t, s))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() {
		_, err := ts[0].Run(ctx, json.RawMessage(`{}`))
		done <- err
	}()
	<-started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
}
