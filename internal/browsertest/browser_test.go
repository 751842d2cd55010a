package browsertest_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/enforcer-go/enforcer/internal/proc"
)

// browsers are the names a Chromium or Chrome goes by on PATH, the
// headless shell (built for automation: no GTK, no D-Bus) first.
var browsers = []string{"chromium-headless-shell", "headless_shell", "headless-shell",
	"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"}

// launches are the ways each browser is tried, in order: the second keeps
// shared memory in /dev/shm and runs without the zygote, for machines on
// which the first fails to start; the third gives the browser a home and
// config directories it can write (home: a CI user's HOME may be missing
// or read-only, and Chromium's crash handler stops the start without one)
// and starts no crash handler; the last runs the browser as one process
// (no renderer, GPU or utility processes to start, for a machine that
// limits how many processes or threads a user may have).
func launches(home string) [][]chromedp.ExecAllocatorOption {
	env := chromedp.Env("HOME="+home, "XDG_CONFIG_HOME="+home+"/.config", "XDG_CACHE_HOME="+home+"/.cache", "XDG_RUNTIME_DIR="+home)
	return [][]chromedp.ExecAllocatorOption{
		{},
		{chromedp.Flag("disable-dev-shm-usage", false), chromedp.Flag("no-zygote", true)},
		{env, chromedp.Flag("disable-crashpad-for-testing", true), chromedp.Flag("no-zygote", true)},
		{env, chromedp.Flag("disable-crashpad-for-testing", true), chromedp.Flag("no-zygote", true),
			chromedp.Flag("single-process", true)},
	}
}

// startBrowser starts a headless browser with a 900×600 window and returns
// a context for driving it. It tries every browser on PATH and every
// launch until one starts, so that one broken install or one machine's
// quirk does not decide the test; what the page does is asserted after
// the browser has started, never retried. Without any browser the test
// skips, except in CI (CI=true), where .ci/run installs Debian's and a
// missing browser is a failure. A browser that is there but never starts
// fails the test everywhere, with what each attempt printed.
func startBrowser(t *testing.T) (context.Context, context.CancelFunc) {
	t.Helper()
	var found []string
	for _, name := range browsers {
		if p, err := exec.LookPath(name); err == nil {
			found = append(found, p)
		}
	}
	if len(found) == 0 {
		msg := "no Chromium or Chrome on PATH (looked for " + strings.Join(browsers, ", ") + "); " +
			"install one (Debian: apt-get install chromium-headless-shell) to run the live page's browser test"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	var failures []string
	home := browserDir(t)
	for _, path := range found {
		for i, extra := range launches(home) {
			opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
				chromedp.DisableGPU, chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
				chromedp.WindowSize(900, 600), chromedp.Flag("lang", "en-US"))
			opts = append(opts, extra...)
			actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
			bctx, cancelBrowser := chromedp.NewContext(actx)
			// Running no action starts the browser and opens its first tab.
			if err := chromedp.Do(bctx); err != nil {
				cancelBrowser()
				cancelAlloc()
				failures = append(failures, fmt.Sprintf("%s (launch %d): %v", path, i+1, err))
				continue
			}
			if len(failures) > 0 {
				t.Logf("%d launch(es) failed before %s (launch %d) started:\n%s",
					len(failures), path, i+1, strings.Join(failures, "\n"))
			}
			return bctx, func() { cancelBrowser(); cancelAlloc() }
		}
	}
	for _, path := range found {
		failures = append(failures, plainStart(t, path))
	}
	t.Fatalf("no browser started:\n%s", strings.Join(failures, "\n\n"))
	return nil, nil
}

// plainStart runs the browser once by hand, with the fewest flags, and
// says what happened.
func plainStart(t *testing.T, path string) string {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := proc.Command(ctx, path, "--headless", "--no-sandbox", "--disable-gpu",
		"--user-data-dir="+browserDir(t), "--dump-dom", "about:blank")
	out, err := cmd.CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return fmt.Sprintf("%s --headless --dump-dom about:blank by hand: %v (ended: %v), last lines:\n%s",
		path, err, cmd.ProcessState, strings.Join(lines, "\n"))
}

// browserDir is a temporary folder for a browser's home or profile,
// removed when the test ends. A browser's helpers may still write to it
// for a moment after the browser has exited, so removal is retried for
// up to five seconds, where t.TempDir would fail the test at once.
func browserDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "browsertest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for os.RemoveAll(dir) != nil && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond) // the helpers are exiting
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("the browser's folder %s could not be removed", dir)
		}
	})
	return dir
}
