package openai

import (
	"testing"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

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

// client is configured as a user would, against the fake server.
func (f *fakeServer) client(opts ...option.RequestOption) sdk.Client {
	return clientAt(f.URL, opts...)
}

// clientAt is a client of the server at url, configured as a user would.
func clientAt(url string, opts ...option.RequestOption) sdk.Client {
	return sdk.NewClient(append([]option.RequestOption{
		option.WithBaseURL(url + "/v1/"),
		option.WithAPIKey("test-key"),
	}, opts...)...)
}

// adapter is the adapter under test, as wiretest's scenarios drive it.
var adapter = wiretest.Adapter{
	System:  System,
	Streams: openaiwiretest.StreamOf,
	New: func(t *testing.T, c wiretest.Client) agent.StreamingModel {
		var opts []option.RequestOption
		if c.Retries {
			opts = append(opts, option.WithMaxRetries(3))
		}
		var mopts []Option
		if c.Timeout > 0 {
			mopts = append(mopts, WithRequestOptions(option.WithRequestTimeout(c.Timeout)))
		}
		return New(clientAt(c.URL, opts...), "gpt-4o-mini", mopts...)
	},
	Read: openaiwiretest.ReadRequest,
}

// requests returns the request bodies received so far.
func (f *fakeServer) requests() [][]byte { return f.Requests() }
