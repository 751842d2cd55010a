package enforce_test

import (
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// A choice's Check, and its stream dooming prose at the first byte.
func BenchmarkChoice(b *testing.B) {
	s := mustChoice(b, false, sentiments...).WithRepairs(enforce.RepairLabel)
	for _, answer := range []string{"positive", " Positive.", "The review is positive."} {
		b.Run("Check/"+answer, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = s.Check(answer)
			}
		})
	}
	b.Run("Stream/prose", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			st := s.Stream()
			_, _ = st.WriteString("The review is positive.")
		}
	})
}

// A 4 KiB text streamed in 16-byte chunks, every rule that cuts early
// watching it, against its Check.
func BenchmarkText(b *testing.B) {
	s, err := enforce.Text(enforce.MaxLength(8000), enforce.MaxBytes(8000), enforce.MustNotContain("as an AI"),
		enforce.MustNotContain("password"), enforce.MustContain("Paris"))
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("Sunny in Paris, 21 degrees, a light breeze from the west. ", 80)[:4096]
	b.Run("Check", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			_ = s.Check(text)
		}
	})
	b.Run("Stream", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			st := s.Stream()
			for i := 0; i < len(text); i += 16 {
				_, _ = st.WriteString(text[i:min(i+16, len(text))])
			}
			_ = st.Close()
		}
	})
}
