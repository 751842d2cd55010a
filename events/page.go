package events

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"mime"
	"net/http"
	"strings"
)

// The live page: HTML, CSS and plain JavaScript, embedded and put
// together once into one document, so that it needs nothing but the
// stream's own URL (no build step, no CDN; it works offline).
var (
	//go:embed page/index.html
	pageHTML string
	//go:embed page/style.css
	pageCSS string
	//go:embed page/app.js
	pageJS string
)

// page is the assembled document and its Content-Security-Policy.
var page, pageCSP = buildPage()

// buildPage inlines the style and the script (preceded by the words the
// page shows, from this package's vocabularies, so that the page and
// Describe say the same) and allows exactly those two by their hashes.
func buildPage() (doc []byte, csp string) {
	words, _ := json.Marshal(pageWords())
	js := "const WORDS = " + string(words) + ";\n" + pageJS
	doc = []byte(strings.NewReplacer("/*STYLE*/", pageCSS, "/*SCRIPT*/", js).Replace(pageHTML))
	hash := func(s string) string {
		h := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
	}
	csp = "default-src 'none'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; " +
		"script-src " + hash(js) + "; style-src " + hash(pageCSS)
	return doc, csp
}

// pageWords is the vocabulary the page renders retries and failures with.
func pageWords() map[string]map[string]string {
	method := map[string]string{
		"turnStarted": string(MethodTurnStarted), "turnRetry": string(MethodTurnRetry), "modelRetry": string(MethodModelRetry),
		"schemaRetry": string(MethodSchemaRetry), "schemaExhausted": string(MethodSchemaExhausted),
		"toolCallRejected": string(MethodToolCallRejected), "rulesJudged": string(MethodRulesJudged),
		"turnCompleted": string(MethodTurnCompleted), "turnUnqueued": string(MethodTurnUnqueued),
	}
	errs := map[string]string{}
	for _, k := range []ErrorKind{KindRateLimit, KindOverloaded, KindServerError, KindTimeout, KindConnection, KindBadRequest, KindAuth, KindUnknown} {
		errs[string(k)] = k.words()
	}
	fails := map[string]string{}
	for _, k := range []FailureKind{FailureStepLimit, FailureConfigError, FailureProjectionError, FailureLogError,
		FailureWorkflowLaunchError, FailureEnvironmentError, FailureModelError, FailureLaunchError, FailureAuthRequired} {
		fails[string(k)] = k.words()
	}
	reasons := map[string]string{}
	for r, w := range exhaustReasons {
		reasons[string(r)] = w
	}
	return map[string]map[string]string{
		"method":        method,
		"exhaustReason": reasons,
		"kindSubject":   kindSubjects,
		"errorKind":     errs,
		"failureKind":   fails,
		"fallback":      {"errorKind": ErrorKind("").words(), "reason": fallbackReason},
	}
}

// wantsPage reports whether r is a browser opening the stream's URL: a
// GET or HEAD that accepts HTML and not an event stream.
func wantsPage(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	html, sse := false, false
	for _, part := range strings.Split(strings.Join(r.Header.Values("Accept"), ","), ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "text/html":
			html = true
		case "text/event-stream":
			sse = true
		}
	}
	return html && !sse
}

func servePage(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
	h.Add("Vary", "Accept")
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(page)
}
