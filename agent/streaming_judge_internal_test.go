package agent

import (
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// With tools offered, the text is not shown to a watcher until it begins a
// JSON object or array. Waiting for that reads each byte of the whitespace
// before it once (trimming the whole text at every chunk took 5.5 s for
// 128 Ki one-byte chunks): after each read the judge has looked at all the
// text so far, so the next read starts where this one stopped; and the
// answer after the whitespace is judged.
func TestAGatedJudgeReadsLeadingWhitespaceOnce(t *testing.T) {
	s, err := enforce.SchemaFor[struct {
		City string `json:"city"`
	}]()
	if err != nil {
		t.Fatal(err)
	}
	j := &judge{es: s.Stream(), gated: true, schema: s}
	text := ""
	for i := range 1000 {
		text += " \n\t"[i%3 : i%3+1]
		if ce, _ := j.read(text); ce != nil || !j.gated {
			t.Fatalf("after %d bytes of whitespace: verdict %v, gated %v", len(text), ce, j.gated)
		}
		if j.lead != len(text) {
			t.Fatalf("after %d bytes of whitespace the judge has looked at %d: the next read would scan them again", len(text), j.lead)
		}
	}
	text += `{"city": 7,`
	ce, _ := j.read(text)
	if j.gated || ce == nil || ce.Path() != "/city" {
		t.Errorf("the answer after the whitespace: verdict %v, gated %v; want it judged (/city)", ce, j.gated)
	}
}
