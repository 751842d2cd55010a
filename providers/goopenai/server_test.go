package goopenai

import (
	"net/http"
	"testing"

	sdk "github.com/sashabaranov/go-openai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/openaiwiretest"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// reply is one scripted HTTP response.
type reply = wiretest.Reply

// okReply is a 200 with a chat completions body.
func okReply(body string) reply { return wiretest.OK(body) }

// fakeServer speaks the chat completions wire format from a script and keeps
// every request body it received.
type fakeServer struct{ *wiretest.Server }

func newFakeServer(t *testing.T, script ...reply) *fakeServer {
	t.Helper()
	s := wiretest.NewServer(t, script...)
	s.StreamsWith(openaiwiretest.StreamOf)
	return &fakeServer{s}
}

// client is a client configuration of the fake server, as a user would
// write it.
func (f *fakeServer) client() sdk.ClientConfig {
	return clientAt(f.URL)
}

// clientAt is a client configuration of the server at url, as a user
// would write it.
func clientAt(url string) sdk.ClientConfig {
	c := sdk.DefaultConfig("test-key")
	c.BaseURL = url + "/v1"
	return c
}

// adapter is the adapter under test, as wiretest's scenarios drive it.
var adapter = wiretest.Adapter{
	System:  System,
	Streams: openaiwiretest.StreamOf,
	New: func(t *testing.T, c wiretest.Client) agent.StreamingModel {
		// go-openai never retries: c.Retries asks nothing of it.
		config := clientAt(c.URL)
		if c.Timeout > 0 {
			config.HTTPClient = &http.Client{Timeout: c.Timeout}
		}
		return New(config, "gpt-4o-mini")
	},
	Read: openaiwiretest.ReadRequest,
	// go-openai decodes each data line alone: see
	// TestAnEndlessDataLineIsReadToItsBound for its bound.
	LinesAlone: true,
}

// requests returns the request bodies received so far.
func (f *fakeServer) requests() [][]byte { return f.Requests() }
