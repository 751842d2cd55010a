package enforce_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// streamedRules writes answer to s.StreamValidating in pieces of size
// and returns the early verdict and the bytes read to give it.
func streamedRules(t *testing.T, s *enforce.Schema, answer string, size int) (*enforce.CheckError, int) {
	t.Helper()
	st := s.StreamValidating(t.Context(), enforce.Try{Attempt: 1, RetriesLeft: 1})
	read := 0
	for i := 0; i < len(answer); i += size {
		n, err := st.WriteString(answer[i:min(i+size, len(answer))])
		read += n
		var ce *enforce.CheckError
		if errors.As(err, &ce) {
			return ce, read
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return nil, -1
}

func textWith(t testing.TB, vs ...enforce.Validator) *enforce.Schema {
	t.Helper()
	s, err := enforce.Text(enforce.MaxLength(1000))
	if err != nil {
		t.Fatal(err)
	}
	if s, err = s.WithValidators(vs...); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStreamValidatingHoldsATextToForbiddenWords(t *testing.T) {
	tests := []struct {
		name, word, answer string
		// sure is what the answer is read up to when the word is caught,
		// -1 when it is not caught as it streams.
		sure int
	}{
		{"a word is caught at the rune after it", "Globex", "try GLOBEX, now", len("try GLOBEX,")},
		{"a word ending in no letter is caught at its last byte", "C++", "use c++ here", len("use c++")},
		{"a word going on into a longer one is not caught", "Globex", "Globexy Globex5 Globexé", -1},
		{"a word that ends the text waits for the end", "Globex", "try Globex", -1},
		{"a multibyte word under simple folding", "σίσυφος", "ΣΊΣΥΦΟΣ… rolls", len("ΣΊΣΥΦΟΣ…")},
		{"a mark after the word makes it a longer one", "cafe", "cafe\u0301 is open", -1},
	}
	for _, tt := range tests {
		for _, size := range []int{1, 3, 64} {
			t.Run(tt.name, func(t *testing.T) {
				s := textWith(t, enforce.ForbiddenWords("words", tt.word))
				ce, read := streamedRules(t, s, tt.answer, size)
				if read != tt.sure {
					t.Fatalf("in pieces of %d: read %d bytes to a verdict %v, want %d", size, read, ce, tt.sure)
				}
				if ce == nil {
					return
				}
				want := enforce.Issue{Keyword: "words", Message: `forbidden word "` + tt.word + `"`}
				if ce.Stage != enforce.StageSchemaValidate || !reflect.DeepEqual(ce.Issues, []enforce.Issue{want}) {
					t.Errorf("verdict %+v, want %+v at schema-validate", ce, want)
				}
			})
		}
	}
}

func TestStreamValidatingCutsOnlyForRulesThatRetry(t *testing.T) {
	for _, p := range []enforce.Policy{enforce.PolicyWarn, enforce.PolicyTripwire} {
		s := textWith(t, enforce.ForbiddenWords("words", "Globex").OnFail(p))
		if ce, read := streamedRules(t, s, "try Globex, now", 1); ce != nil {
			t.Errorf("%s: cut after %d bytes with %v, want the answer judged whole", p, read, ce)
		}
	}
}

// FuzzTextRulesStream holds a text's early verdict from the prefix-sound
// rules (ForbiddenWords, Grounded) to the sound early abort's rule as it stands for rules: the
// answer read up to the cut, however it goes on to keep the schema,
// fails with that very issue.
func FuzzTextRulesStream(f *testing.F) {
	f.Add("try GLOBEX, now", "Globex", byte(1))
	f.Add("ΣΊΣΥΦΟΣ… rolls", "σίσυφος", byte(2))
	f.Add("use c++ here", "C++", byte(5))
	f.Add("cafe\u0301 \xe2\x82", "cafe", byte(1))
	f.Add("he said “the bridge fell” and \"it was closed\"", "the bridge was closed", byte(3))
	f.Fuzz(func(t *testing.T, answer, word string, size byte) {
		// word is also Grounded's one source.
		s := textWith(t, enforce.ForbiddenWords("words", word), enforce.Grounded("grounded", word))
		ce, read := streamedRules(t, s, answer, int(size%16)+1)
		if ce == nil {
			return
		}
		for _, c := range []string{answer[read:], "", "y", "5", "\u0301", "é", " ", "\x80", strings.ToUpper(word), `"`, "”"} {
			whole := answer[:read] + c
			if s.Check(whole) != nil {
				continue // rules judge only answers that keep the schema
			}
			var got *enforce.CheckError
			if err := s.Judge(t.Context(), enforce.Answer{Given: whole}); !errors.As(err, &got) ||
				!slices.ContainsFunc(got.Issues, func(is enforce.Issue) bool { return reflect.DeepEqual(is, ce.Issues[0]) }) {
				t.Fatalf("cut after %q with %+v, but %q judges %v", answer[:read], ce, whole, err)
			}
		}
	})
}
