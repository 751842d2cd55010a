package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
)

func TestFailure(t *testing.T) {
	response := func(status int, header http.Header, body string) *http.Response {
		if header == nil {
			header = http.Header{}
		}
		return &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(strings.NewReader(body))}
	}
	sdkErr := errors.New("sdk: failed")
	tests := []struct {
		name    string
		err     error
		res     *http.Response
		message string
		want    agent.ProviderError
	}{
		{"a 429 with Retry-After", sdkErr, response(429, http.Header{"Retry-After": {"3"}}, ""), "slow down",
			agent.ProviderError{System: "sys", Kind: events.KindRateLimit, HTTPStatus: 429, RetryAfter: 3 * time.Second, Message: "slow down"}},
		{"a 502 with an HTML body keeps the page's text", sdkErr, response(502, nil, "<html>\n  Bad   gateway</html>"), "",
			agent.ProviderError{System: "sys", Kind: events.KindServerError, HTTPStatus: 502, Message: "<html> Bad gateway</html>"}},
		{"a 400 is a bad request", sdkErr, response(400, nil, ""), "no such model",
			agent.ProviderError{System: "sys", Kind: events.KindBadRequest, HTTPStatus: 400, Message: "no such model"}},
		{"a timeout", fmt.Errorf("post: %w", context.DeadlineExceeded), nil, "",
			agent.ProviderError{System: "sys", Kind: events.KindTimeout}},
		{"a refused connection", &url.Error{Op: "Post", URL: "http://127.0.0.1:1", Err: errors.New("connection refused")}, nil, "",
			agent.ProviderError{System: "sys", Kind: events.KindConnection}},
		{"a body that ends early", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), nil, "",
			agent.ProviderError{System: "sys", Kind: events.KindConnection}},
		{"a success whose body did not decode", errors.New("json: bad"), response(200, nil, ""), "",
			agent.ProviderError{System: "sys", Kind: events.KindUnknown, HTTPStatus: 200, Message: "malformed response body"}},
		{"a status above HTTP's range is unknown and not kept", sdkErr, response(999, nil, "odd"), "",
			agent.ProviderError{System: "sys", Kind: events.KindUnknown, Message: "invalid HTTP status 999"}},
		{"a status below HTTP's range is unknown and not kept", sdkErr, response(99, nil, ""), "provider said so",
			agent.ProviderError{System: "sys", Kind: events.KindUnknown, Message: "provider said so"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Failure(context.Background(), "sys", tt.err, tt.res, tt.message)
			var pe *agent.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *agent.ProviderError", err)
			}
			got := *pe
			got.Err = nil
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("the SDK's error is not wrapped")
			}
		})
	}
}

func TestFailureKeepsTheCauseOfACancelledContext(t *testing.T) {
	cause := errors.New("user left")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	if err := Failure(ctx, "sys", context.Canceled, nil, ""); !errors.Is(err, cause) {
		t.Errorf("err = %v, want the cause", err)
	}
}

func TestEventFailure(t *testing.T) {
	sdkErr := errors.New("sdk: error event")
	tests := []struct {
		name   string
		status int
		want   agent.ProviderError
	}{
		{"a documented overload keeps its kind but no status", 529,
			agent.ProviderError{System: "sys", Kind: events.KindOverloaded, Message: "Overloaded"}},
		{"a documented server error", 500,
			agent.ProviderError{System: "sys", Kind: events.KindServerError, Message: "Overloaded"}},
		{"an undocumented type is unknown", 0,
			agent.ProviderError{System: "sys", Kind: events.KindUnknown, Message: "Overloaded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := EventFailure("sys", tt.status, "Overloaded", sdkErr)
			var pe *agent.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *agent.ProviderError", err)
			}
			got := *pe
			got.Err = nil
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if !errors.Is(err, sdkErr) {
				t.Error("the SDK's error is not wrapped")
			}
		})
	}
}

func TestStreamEndedIsALostConnection(t *testing.T) {
	var pe *agent.ProviderError
	if err := StreamEnded("sys"); !errors.As(err, &pe) || pe.Kind != events.KindConnection || pe.System != "sys" || !pe.Retryable() {
		t.Fatalf("err = %v, want a retryable ProviderError of kind connection", err)
	}
	if !errors.Is(pe, io.ErrUnexpectedEOF) {
		t.Errorf("err = %v, want it to match io.ErrUnexpectedEOF, as a body that ends early does", pe)
	}
}

func TestMalformedIsOfKindUnknownWithTheStatusItCameWith(t *testing.T) {
	for _, res := range []*http.Response{nil, {StatusCode: 200}} {
		err := Malformed("acme", Status(res), "no choices")
		var pe *agent.ProviderError
		if !errors.As(err, &pe) {
			t.Fatalf("Malformed = %T, want *agent.ProviderError", err)
		}
		want := agent.ProviderError{System: "acme", Kind: events.KindUnknown, HTTPStatus: Status(res), Message: "malformed response: no choices", Err: errMalformed}
		if *pe != want {
			t.Errorf("Malformed = %+v, want %+v", *pe, want)
		}
	}
	if got := Status(&http.Response{StatusCode: 201}); got != 201 {
		t.Errorf("Status = %d, want 201", got)
	}
}
