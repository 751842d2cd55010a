// Package browsertest has no code. Its test drives the events package's
// live page in headless Chromium (github.com/chromedp/chromedp), which is
// why it is a module of its own: the core module keeps its three
// dependencies. The root's `go test ./...` runs it through
// internal/modules.
package browsertest
