package enforce_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

func TestPII(t *testing.T) {
	tests := []struct {
		name   string
		kinds  []enforce.PIIKind
		answer string
		want   []enforce.Issue
	}{
		{"an email address is found", nil, `{"a": "write to jane.doe+news@mail.example.org today"}`,
			[]enforce.Issue{{Path: "/a", Keyword: "pii", Message: "holds an email address at byte 9"}}},
		{"an E.164 number, spaced, is found", nil, `{"a": "call +44 20 7946 0958."}`,
			[]enforce.Issue{{Path: "/a", Keyword: "pii", Message: "holds a phone number at byte 5"}}},
		{"a national number with its trunk 0 is found", nil, `{"a": "Tel. 01 99 00 12 34"}`,
			[]enforce.Issue{{Path: "/a", Keyword: "pii", Message: "holds a phone number at byte 5"}}},
		{"a North American number is found", nil, `{"a": "(212) 555-0143 after six"}`,
			[]enforce.Issue{{Path: "/a", Keyword: "pii", Message: "holds a phone number at byte 0"}}},
		{"a card number passing Luhn is found", nil, `{"a": "card 4111 1111 1111 1111 exp 12/29"}`,
			[]enforce.Issue{{Path: "/a", Keyword: "pii", Message: "holds a credit-card number at byte 5"}}},
		{"a card number failing Luhn is not", nil, `{"a": "card 4111 1111 1111 1112"}`, nil},
		{"an IBAN passing mod-97 is found, grouped", nil, `{"a": "IBAN DE89 3704 0044 0532 0130 00, BIC COBADEFFXXX"}`,
			[]enforce.Issue{{Path: "/a", Keyword: "pii", Message: "holds an IBAN at byte 5"}}},
		{"an IBAN failing mod-97 is not", nil, `{"a": "DE88370400440532013000"}`, nil},
		{"dates, versions, addresses and order numbers are not", nil,
			`{"a": "On 2024-03-15 at 10:30 we shipped v1.12.3 to 192.168.100.200, order #4481-2207-93, ISBN 978-3-16-148410-0"}`, nil},
		{"only the kinds asked for are looked for", []enforce.PIIKind{enforce.PIICard}, `{"a": "jane@example.org, 5555 5555 5555 4444"}`,
			[]enforce.Issue{{Path: "/a", Keyword: "pii", Message: "holds a credit-card number at byte 18"}}},
		{"each string at its pointer, member names unread", nil, `{"jane@example.org": "fine", "l": ["ok", "ring 020 7946 0018"]}`,
			[]enforce.Issue{{Path: "/l/1", Keyword: "pii", Message: "holds a phone number at byte 5"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := withValidators(t, mustCompile(t, `{"type": "object", "additionalProperties": {"type": ["string", "array"]}}`), enforce.PII("pii", tt.kinds...))
			err := s.Judge(t.Context(), enforce.Answer{Given: tt.answer})
			var got []enforce.Issue
			var ce *enforce.CheckError
			if errors.As(err, &ce) {
				got = ce.Issues
			} else if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("issues = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestPIIRefusesAnUnknownKind(t *testing.T) {
	s := withValidators(t, mustCompile(t, `{"type": "string"}`), enforce.PII("pii", "passport"))
	err := s.Judge(t.Context(), enforce.Answer{Given: `"fine"`})
	var ve *enforce.ValidatorError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a *ValidatorError", err)
	}
}

// FuzzPII holds PII to never failing to judge any text, and to finding
// a valid card number set apart by spaces after it.
func FuzzPII(f *testing.F) {
	f.Add("mail a@b.co or +1 (212) 555-0143")
	f.Add("GB82 WEST 1234 5698 7654 32")
	f.Add("@@..++((4111 1111 1111")
	f.Fuzz(func(t *testing.T, text string) {
		b, err := json.Marshal(map[string]string{"a": text, "b": text + " 4111 1111 1111 1111 "})
		if err != nil {
			t.Skip()
		}
		s := withValidators(t, mustCompile(t, `{"type": "object"}`), enforce.PII("pii"))
		err = s.Judge(t.Context(), enforce.Answer{Given: string(b)})
		var ve *enforce.ValidatorError
		if errors.As(err, &ve) {
			t.Fatalf("PII could not judge %s: %v", b, err)
		}
		var ce *enforce.CheckError
		if !errors.As(err, &ce) {
			t.Fatalf("PII did not find the card in %s", b)
		}
	})
}
