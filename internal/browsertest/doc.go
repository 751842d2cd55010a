// Package browsertest has no code. Its test drives the events package's
// live page in headless Chromium (github.com/chromedp/chromedp), which is
// why it is a module of its own: the core module keeps its three
// dependencies. The test command (internal/testall) runs it.
package browsertest
