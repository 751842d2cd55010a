package goopenai

import (
	"context"
	"net/http"

	sdk "github.com/sashabaranov/go-openai"

	"github.com/enforcer-go/enforcer/providers/internal/wire"
)

// bounded is the HTTPDoer the adapter's client sends through: the
// caller's, then wire.Bound on each response, nearest the socket, so that
// no reply is read past its bound. It keeps the response in the call the
// request's context carries, since go-openai's errors hold the status but
// not the headers a Retry-After is read from.
type bounded struct{ next sdk.HTTPDoer }

func (b bounded) Do(req *http.Request) (*http.Response, error) {
	next := b.next
	if next == nil {
		next = http.DefaultClient
	}
	res, err := next.Do(req)
	if err != nil {
		return res, err
	}
	c, _ := req.Context().Value(callKey{}).(*call)
	// go-openai asks for a stream with Accept: text/event-stream.
	stream := c != nil && c.stream || req.Header.Get("Accept") == "text/event-stream"
	wire.Bound(res, stream)
	if c != nil {
		c.res = res
	}
	return res, nil
}

// call is one request's HTTP response, once it has come.
type call struct {
	stream bool
	res    *http.Response
}

type callKey struct{}

// withCall is ctx carrying a call for the response of the request made
// with it.
func withCall(ctx context.Context, stream bool) (context.Context, *call) {
	c := &call{stream: stream}
	return context.WithValue(ctx, callKey{}, c), c
}
