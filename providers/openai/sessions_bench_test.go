package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/internal/loadbench"
	"github.com/enforcer-go/enforcer/providers/internal/openaiwiretest"
)

// BenchmarkSessionsOverOpenAI runs turns in 2,000 sessions at once (or
// ENFORCER_BENCH_SESSIONS) through openai-go against a scripted chat
// completions server in another process, the figure issue 31 asks for:
// what the agent, and the agent with a file log per session, cost beside
// a bare openai-go loop making the same calls. A turn is four streamed
// calls: a 500, an answer that breaks the contract, a 500, the passing
// answer (about 1 KiB in 5-byte deltas, each reply after 20 ms); the
// agent records six events a turn. An op is one turn; cpu-ns/op is this
// process's user and system time (getrusage), so the server's is left
// out, and so is what the kernel's own threads spend writing back.
func BenchmarkSessionsOverOpenAI(b *testing.B) {
	sessions := loadbench.Sessions(b, 2000)
	url := "http://" + loadbench.Server(b, "TestSessionsServer", sessionsServerEnv) + "/"
	client := sdk.NewClient(option.WithBaseURL(url), option.WithAPIKey("bench-key"), option.WithMaxRetries(0),
		option.WithHTTPClient(&http.Client{Transport: &http.Transport{MaxIdleConns: sessions, MaxIdleConnsPerHost: sessions}}))
	ctx := context.Background()
	// One untimed turn a session first, so that no variant pays for the
	// connections the first one opened.
	var warm sync.WaitGroup
	for range sessions {
		warm.Go(func() {
			if err := bareTurn(ctx, client, &scriptRouter{}); err != nil {
				b.Error(err)
			}
		})
	}
	warm.Wait()
	b.Run("bare openai-go loop", func(b *testing.B) {
		loadbench.Run(b, sessions, func(int) error { return bareTurn(ctx, client, &scriptRouter{}) })
	})
	b.Run("agent no log", func(b *testing.B) { benchAgentSessions(b, client, sessions, false) })
	b.Run("agent file log", func(b *testing.B) { benchAgentSessions(b, client, sessions, true) })
}

// benchReport is the contract of the benchmark's answers.
type benchReport struct {
	Title string `json:"title"`
	Items []struct {
		Name string `json:"name"`
		Qty  int    `json:"qty"`
		Note string `json:"note"`
	} `json:"items"`
}

// benchAnswer is the passing answer, about 1 KiB.
func benchAnswer() string {
	var b strings.Builder
	b.WriteString(`{"title":"Quarterly stock count for the Paris warehouse","items":[`)
	for i := range 17 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"item-%02d","qty":%d,"note":"counted twice, ok"}`, i, i*7)
	}
	b.WriteString(`]}`)
	return b.String()
}

// sessionsServerEnv makes the test binary the scripted server of
// BenchmarkSessionsOverOpenAI.
const sessionsServerEnv = "ENFORCER_OPENAI_SESSIONS_SERVER"

// TestSessionsServer is the scripted server when BenchmarkSessionsOverOpenAI
// starts this binary again; otherwise it skips. It prints its address,
// then answers /fail/chat/completions with a 500, /broken/… with a
// streamed answer that breaks the contract and /ok/… with the passing
// one, each after 20 ms, until its stdin closes.
func TestSessionsServer(t *testing.T) {
	sse := func(content string) []byte {
		c, _ := json.Marshal(content)
		body := `{"id":"chatcmpl-s1","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":` +
			string(c) + `}}],"usage":{"prompt_tokens":40,"completion_tokens":300,"total_tokens":340}}`
		return []byte(strings.Join(openaiwiretest.StreamOf(body), ""))
	}
	ok, broken := sse(benchAnswer()), sse(`{"title":"x","items":"none"}`)
	loadbench.Serve(t, sessionsServerEnv, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		time.Sleep(20 * time.Millisecond) // the model thinking
		switch strings.TrimSuffix(r.URL.Path, "/chat/completions") {
		case "/fail":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`{"error":{"message":"scripted","type":"server_error"}}`))
		case "/broken":
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write(broken)
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write(ok)
		}
	}))
}

// scriptRouter sends a session's calls to the script's paths in turn: a
// request option both the bare loop and the adapter send with.
type scriptRouter struct{ calls int }

var script = [...]string{"fail", "broken", "fail", "ok"}

func (r *scriptRouter) route(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	req.URL.Path = "/" + script[r.calls%len(script)] + req.URL.Path
	r.calls++
	return next(req)
}

// bareTurn is the turn as a loop written by hand over openai-go makes it:
// each call streamed and its content gathered, a failed call sent again,
// the answer decoded, a broken one sent back with a correction.
func bareTurn(ctx context.Context, client sdk.Client, r *scriptRouter) error {
	msgs := []sdk.ChatCompletionMessageParamUnion{sdk.UserMessage("Count the stock.")}
	for range len(script) {
		stream := client.Chat.Completions.NewStreaming(ctx, sdk.ChatCompletionNewParams{Model: "gpt-4o-mini", Messages: msgs},
			option.WithMiddleware(r.route))
		var text strings.Builder
		for stream.Next() {
			if ch := stream.Current(); len(ch.Choices) > 0 {
				text.WriteString(ch.Choices[0].Delta.Content)
			}
		}
		err := stream.Err()
		stream.Close()
		var apiErr *sdk.Error
		switch {
		case errors.As(err, &apiErr):
			continue // a 500: call again
		case err != nil:
			return err
		}
		var rep benchReport
		if err := json.Unmarshal([]byte(text.String()), &rep); err != nil {
			msgs = append(msgs, sdk.AssistantMessage(text.String()), sdk.UserMessage("That broke the contract: "+err.Error()+". Reply with only the JSON."))
			continue
		}
		return nil
	}
	return errors.New("the script ended without a passing answer")
}

// benchAgentSessions runs the turns through an agent per session over the
// adapter, each with a file log of its own when withLog.
func benchAgentSessions(b *testing.B, client sdk.Client, sessions int, withLog bool) {
	s, err := enforce.SchemaFor[benchReport]()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	agents := make([]*agent.Agent, sessions)
	var streams []*events.Stream
	var logs []events.Log
	for i := range agents {
		r := &scriptRouter{}
		opts := []agent.Option{agent.WithOutputSchema(s), agent.WithOutputRetries(2),
			agent.WithModelRetry(agent.RetryPolicy{Backoff: func(int, error) time.Duration { return 0 }})}
		if withLog {
			l, err := events.OpenFile(filepath.Join(dir, fmt.Sprintf("s%04d.ndjson", i)))
			if err != nil {
				b.Fatal(err)
			}
			st, err := events.NewStream(fmt.Sprintf("session-%04d", i), l)
			if err != nil {
				b.Fatal(err)
			}
			streams, logs = append(streams, st), append(logs, l)
			opts = append(opts, agent.WithEvents(st))
		}
		agents[i] = agent.New(New(client, "gpt-4o-mini", WithRequestOptions(option.WithMiddleware(r.route))), opts...)
	}
	ctx := context.Background()
	loadbench.Run(b, sessions, func(i int) error {
		_, err := agents[i].Run(ctx, "Count the stock.")
		return err
	})
	var records int64
	for _, l := range logs {
		records += l.Last()
	}
	if want := 6 * int64(b.N); withLog && records != want {
		b.Fatalf("%d records for %d turns, want %d", records, b.N, want)
	}
	for _, st := range streams {
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
