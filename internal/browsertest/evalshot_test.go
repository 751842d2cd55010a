package browsertest_test

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/eval"
	"github.com/enforcer-go/enforcer/internal/corpus"
)

// evalShotWidth is the eval guide's screenshot's width, in CSS pixels.
const evalShotWidth = 1000

// The eval guide's screenshot is this test's: the page of the real model
// outputs, every repair tried, down to the end of its bars. With
// -screenshot it rewrites docs/eval.png; without, it checks that the
// guide shows a PNG of the width it takes.
func TestTheEvalGuidesScreenshot(t *testing.T) {
	f, err := os.Open(corpus.ModelOutputsFile(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := eval.Offline(t.Context(), f, eval.Options{Repairs: enforce.AllRepairs})
	if err != nil {
		t.Fatal(err)
	}
	ctx, _ := serveEvalPage(t, rep)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(evalShotWidth, 600)); err != nil {
		t.Fatal(err)
	}
	// The shot ends below the bars: the rest of the page is tables.
	bottom := evaluate[float64](t, ctx, `document.querySelector('#rates').getBoundingClientRect().bottom + window.scrollY`)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(evalShotWidth, int64(bottom)+16)); err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != evalShotWidth || b.Dy() < 200 {
		t.Errorf("screenshot is %dx%d px, want %d wide and the bars in it", b.Dx(), b.Dy(), evalShotWidth)
	}
	guide, err := os.ReadFile(filepath.Join("..", "..", "docs", "eval.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(guide, []byte("](eval.png)")) {
		t.Error("docs/eval.md does not show eval.png")
	}
	dst := filepath.Join(t.TempDir(), "eval.png")
	if *screenshot {
		dst = filepath.Join("..", "..", "docs", "eval.png")
	} else if shown, err := os.Open(filepath.Join("..", "..", "docs", "eval.png")); err != nil {
		t.Error(err)
	} else {
		cfg, err := png.DecodeConfig(shown)
		shown.Close()
		if err != nil || cfg.Width != evalShotWidth {
			t.Errorf("docs/eval.png: %+v, %v; want a PNG %d px wide, as this test takes it (run it with -screenshot)", cfg, err, evalShotWidth)
		}
	}
	if err := os.WriteFile(dst, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot written to %s (with -screenshot: the guide's)", dst)
}
