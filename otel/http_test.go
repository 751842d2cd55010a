package otel_test

import (
	"context"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"go.opentelemetry.io/otel/trace"
)

// tracingTransport is an instrumented HTTP client's transport, as
// otelhttp.NewTransport makes one: a client span per request, a child of
// the span in the request's context.
type tracingTransport struct {
	tr   trace.Tracer
	next http.RoundTripper
}

func (t tracingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx, span := t.tr.Start(r.Context(), "HTTP "+r.Method, trace.WithSpanKind(trace.SpanKindClient))
	defer span.End()
	return t.next.RoundTrip(r.WithContext(ctx))
}

// httpModel calls its provider over HTTP with the context it is given, as
// the adapters do: the answer is the response's body.
type httpModel struct {
	client *http.Client
	url    string
}

func (m httpModel) post(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.url, strings.NewReader("{}"))
	if err != nil {
		return "", err
	}
	resp, err := m.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func (m httpModel) Generate(ctx context.Context, _ agent.Request) (agent.Response, error) {
	text, err := m.post(ctx)
	return agent.Response{Message: agent.Message{Content: text}, Stop: agent.StopComplete}, err
}

// streamingHTTPModel streams the body back in two chunks.
type streamingHTTPModel struct{ httpModel }

func (m streamingHTTPModel) GenerateStream(ctx context.Context, _ agent.Request) iter.Seq2[agent.Chunk, error] {
	return func(yield func(agent.Chunk, error) bool) {
		text, err := m.post(ctx)
		if err != nil {
			yield(agent.Chunk{}, err)
			return
		}
		half := len(text) / 2
		if yield(agent.Chunk{Text: text[:half]}, nil) {
			yield(agent.Chunk{Text: text[half:], Stop: agent.StopComplete}, nil)
		}
	}
}

func TestAnInstrumentedHTTPClientNestsItsRequestUnderTheChatSpan(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, valid) }))
	t.Cleanup(srv.Close)
	for _, streamed := range []bool{false, true} {
		name := "generate"
		if streamed {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) {
			tp, exp := traced(t)
			client := &http.Client{Transport: tracingTransport{tp.Tracer("http"), srv.Client().Transport}}
			t.Cleanup(client.CloseIdleConnections)
			var m agent.Model = httpModel{client, srv.URL}
			if streamed {
				m = streamingHTTPModel{httpModel{client, srv.URL}}
			}
			a := newAgent(t, tp, m)

			ctx, parent := tp.Tracer("caller").Start(t.Context(), "handle request")
			_, res, err := agent.RunTyped[Weather](ctx, a, prompt)
			parent.End()
			if err != nil {
				t.Fatal(err)
			}
			spans := wantTree(t, exp, `handle request
  invoke_agent
    chat scripted-1
      HTTP POST
`)
			wantAttrs(t, span(t, spans, "chat scripted-1"), map[string]string{"enforcer.streamed": map[bool]string{false: "false", true: "true"}[streamed]})
			if res.Output != valid {
				t.Errorf("output %q, want %q", res.Output, valid)
			}
		})
	}
}
