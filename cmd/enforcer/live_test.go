package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/eval"
)

// answerFor is what the scripted servers answer a request body: the
// prompt "lima" asks for 0 days until it is corrected; anything else
// passes at once.
func answerFor(body string) string {
	if strings.Contains(body, "lima") && !strings.Contains(body, "did not satisfy") {
		return `{"city":"Lima","days":0}`
	}
	return `{"city":"Oslo","days":3}`
}

// liveServers are a stand-in for each provider's API, streaming the
// answer in the provider's own format.
var liveServers = map[string]func(w io.Writer, answer string){
	"openai": func(w io.Writer, answer string) {
		a, _ := json.Marshal(answer)
		for _, data := range []string{
			`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":` + string(a) + `},"finish_reason":"stop"}]}`,
			`{"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":50,"completion_tokens":10,"total_tokens":60}}`,
			`[DONE]`,
		} {
			io.WriteString(w, "data: "+data+"\n\n")
		}
	},
	"anthropic": func(w io.Writer, answer string) {
		a, _ := json.Marshal(answer)
		for _, ev := range [][2]string{
			{"message_start", `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"usage":{"input_tokens":50,"output_tokens":1}}}`},
			{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
			{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":` + string(a) + `}}`},
			{"content_block_stop", `{"type":"content_block_stop","index":0}`},
			{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":10}}`},
			{"message_stop", `{"type":"message_stop"}`},
		} {
			io.WriteString(w, "event: "+ev[0]+"\ndata: "+ev[1]+"\n\n")
		}
	},
	"gemini": func(w io.Writer, answer string) {
		a, _ := json.Marshal(answer)
		io.WriteString(w, "data: "+`{"candidates":[{"content":{"role":"model","parts":[{"text":`+string(a)+`}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":50,"candidatesTokenCount":10,"totalTokenCount":60}}`+"\r\n\r\n")
	},
}

const liveKey = "sk-test-secret-never-printed"

func TestEvalRunsADatasetLiveOverEachAdapter(t *testing.T) {
	getenv = func(string) string { return liveKey }
	t.Cleanup(func() { getenv = osGetenv })
	data := write(t, "prompts.jsonl", fmt.Sprintf(`{"schema":%s,"prompt":"oslo"}
{"schema":%s,"prompt":"lima"}
`, citySchema, citySchema))
	for provider, stream := range liveServers {
		t.Run(provider, func(t *testing.T) {
			var keys []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				keys = append(keys, r.Header.Get("Authorization")+r.Header.Get("X-Api-Key")+r.Header.Get("X-Goog-Api-Key"))
				w.Header().Set("Content-Type", "text/event-stream")
				stream(w, answerFor(string(body)))
			}))
			defer srv.Close()
			base := srv.URL
			if provider == "openai" {
				base += "/v1/"
			}
			args := []string{"eval", "-provider", provider, "-model", "m-" + provider, "-base-url", base, "-retries", "1", "-runs", "2"}
			code, out, errs := runCmd(t.Context(), "", append(args, data)...)
			if code != exitOK || errs != "" {
				t.Fatalf("status %d, stderr %q", code, errs)
			}
			// group, runs, first try, after retry, exhausted, errors.
			want := "m-" + provider + " 4 2 (50.0%) 4 (100.0%) 0 0"
			if lines := strings.Split(out, "\n"); len(lines) < 2 || !strings.HasPrefix(strings.Join(strings.Fields(lines[1]), " "), want) {
				t.Errorf("the live table's row is not %q:\n%s", want, out)
			}
			if strings.Contains(out, liveKey) {
				t.Errorf("the output shows the key:\n%s", out)
			}
			if len(keys) != 6 || !strings.Contains(keys[0], liveKey) {
				t.Errorf("the server saw %d requests (want 6: oslo twice, lima twice with a retry) with keys %q", len(keys), keys)
			}
			prices := write(t, "prices.json", `{"m-`+provider+`": {"input": 1, "output": 2}}`)
			_, out, _ = runCmd(t.Context(), "", append(append([]string{}, args[:len(args)]...), "-json", "-prices", prices, data)...)
			var rep eval.Report
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			g := rep.Groups[0]
			// A doomed answer cut early may end before its usage is sent:
			// the passing answers' 4 × 60 tokens are counted at least.
			if g.Runs != 4 || g.PassedFirstTry != 2 || g.PassedAfterRetry != 4 || g.Tokens < 4*60 || g.Tokens > 6*60 || g.LatencyMs == nil {
				t.Errorf("-json group = %+v, want 4 runs, 2 first-try, 4 after retry, 240 to 360 tokens, a latency", g)
			}
			// Each passing call: 50 in at 1 and 10 out at 2 a million.
			if g.Money < 4*70e-6-1e-12 || g.Money > 6*70e-6+1e-12 {
				t.Errorf("-json money = %v, want 70 millionths for each call that reported its usage", g.Money)
			}
		})
	}
}

func TestEvalLiveRefusesAMissingKeyAndBadFlags(t *testing.T) {
	getenv = func(string) string { return "" }
	t.Cleanup(func() { getenv = osGetenv })
	data := write(t, "prompts.jsonl", `{"schema":{},"prompt":"x"}`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "-model", "m", data}, "needs its key in OPENAI_API_KEY"},
		{[]string{"eval", "-model", "m", "-provider", "anthropic", data}, "ANTHROPIC_API_KEY"},
		{[]string{"eval", "-model", "m", "-provider", "mistral", data}, `-provider "mistral"`},
		{[]string{"eval", "-model", "m", "-runs", "0", data}, "-runs"},
		{[]string{"eval", "-model", "m", "-retries", "99", data}, "-retries"},
		{[]string{"eval", "-model", "m", "-base-url", "http://127.0.0.1:1/", "-prices", write(t, "bad.json", `{"m": {"inputs": 1}}`), data}, "-prices"},
	} {
		code, out, errs := runCmd(t.Context(), "", tc.args...)
		wantOneLineError(t, code, out, errs, tc.want)
	}
}

func TestEvalDrawsProgressOnlyOnATerminal(t *testing.T) {
	var b strings.Builder
	if progress(&b) != nil {
		t.Error("progress on a buffer, want none")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if progress(f) != nil {
		t.Error("progress on a file, want none")
	}

}

// An offline eval's judge check asks the model it names over -provider
// and -base-url, as a live run's: its verdict fails the case's check,
// and the table counts the judge's tokens and money apart.
func TestEvalAsksAJudgeChecksModelOverTheProvider(t *testing.T) {
	getenv = func(string) string { return liveKey }
	t.Cleanup(func() { getenv = osGetenv })
	check := `[{"at":"/city","judge":"Is the city a capital?","model":"judge-m"}]`
	data := write(t, "judged.jsonl", fmt.Sprintf(`{"id":"oslo","model":"a","schema":%s,"output":"{\"city\":\"Oslo\",\"days\":3}","checks":%s}
{"id":"lyon","model":"a","schema":%s,"output":"{\"city\":\"Lyon\",\"days\":3}","checks":%s}
`, citySchema, check, citySchema, check))
	var models []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string `json:"model"`
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &req)
		models = append(models, req.Model)
		verdict := `{"pass":true,"reason":"Oslo is Norway's capital"}`
		if strings.Contains(string(body), "Lyon") {
			verdict = `{"pass":false,"reason":"Lyon is no capital"}`
		}
		w.Header().Set("Content-Type", "text/event-stream")
		liveServers["openai"](w, verdict)
	}))
	defer srv.Close()
	prices := write(t, "prices.json", `{"judge-m": {"input": 1, "output": 2}}`)
	args := []string{"eval", "-base-url", srv.URL + "/v1/", "-prices", prices}
	code, out, errs := runCmd(t.Context(), "", append(args, data)...)
	if code != exitOK || errs != "" {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, "a checks: 1 of 2 passed; judges spent 120 tokens, 0.000140") {
		t.Errorf("the table does not count the judge's checks and spend apart:\n%s", out)
	}
	if len(models) != 2 || models[0] != "judge-m" {
		t.Errorf("the server was asked for %q, want judge-m twice", models)
	}
	_, out, _ = runCmd(t.Context(), "", append(args, "-json", data)...)
	var rep eval.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	lyon := rep.Cases[1].Checks
	if lyon == nil || len(lyon.Judged) != 1 || lyon.Judged[0].Pass || lyon.Judged[0].Reason != "Lyon is no capital" || rep.Groups[0].Tokens != 0 {
		t.Errorf("lyon's checks = %+v (group tokens %d), want the judge's failing verdict and reason, no run tokens", lyon, rep.Groups[0].Tokens)
	}
}
