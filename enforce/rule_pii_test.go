package enforce_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

func TestPII(t *testing.T) {
	ids := []enforce.PIIKind{enforce.PIISSN, enforce.PIININO, enforce.PIIDNI, enforce.PIINIR, enforce.PIIAadhaar, enforce.PIISteuerID}
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
		{"national IDs are not looked for unless asked for", nil, `{"a": "DNI 63686694Q, NIR 264126098130734, Aadhaar 3414 0912 4239"}`, nil},
		{"a national ID asked for is found with its check", ids, `{"a": "DNI 63686694Q, NIR 264126098130734, Aadhaar 3414 0912 4239"}`,
			[]enforce.Issue{
				{Path: "/a", Keyword: "pii", Message: "holds a Spanish DNI or NIE at byte 4"},
				{Path: "/a", Keyword: "pii", Message: "holds a French social security number at byte 19"},
				{Path: "/a", Keyword: "pii", Message: "holds an Aadhaar number at byte 44"},
			}},
		{"a national ID failing its check is not", ids, `{"a": "DNI 63686694R, NIR 264126098130735, Aadhaar 3414 0912 4238, Steuer-ID 86095742718"}`, nil},
		{"a German tax ID, an SSN and a NINO are found", ids, `{"a": "86095742719; 536-22-8147; JG 10 37 29 A"}`,
			[]enforce.Issue{
				{Path: "/a", Keyword: "pii", Message: "holds a German tax ID at byte 0"},
				{Path: "/a", Keyword: "pii", Message: "holds a US Social Security number at byte 13"},
				{Path: "/a", Keyword: "pii", Message: "holds a UK National Insurance number at byte 26"},
			}},
		{"an SSN's area 9xx and a NINO's prefix QQ are none", ids, `{"a": "900-55-1234 and QQ 12 34 56 C"}`, nil},
		{"each string at its pointer, member names unread", nil, `{"jane@example.org": "fine", "l": ["ok", "ring 020 7946 0018"]}`,
			[]enforce.Issue{{Path: "/l/1", Keyword: "pii", Message: "holds a phone number at byte 5"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ruleIssues(t, `{"type": "object", "additionalProperties": {"type": ["string", "array"]}}`, enforce.PII("pii", tt.kinds...), tt.answer)
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
	every := []enforce.PIIKind{enforce.PIIEmail, enforce.PIIPhone, enforce.PIICard, enforce.PIIIBAN,
		enforce.PIISSN, enforce.PIININO, enforce.PIIDNI, enforce.PIINIR, enforce.PIIAadhaar, enforce.PIISteuerID}
	f.Add("mail a@b.co or +1 (212) 555-0143")
	f.Add("GB82 WEST 1234 5698 7654 32")
	f.Add("@@..++((4111 1111 1111")
	f.Add("X9388917H 1 59 02 92 336 627 02 JG 10 37 29 A 536-22-8147 74 666 280 155")
	f.Fuzz(func(t *testing.T, text string) {
		b, err := json.Marshal(map[string]string{"a": text, "b": text + " 4111 1111 1111 1111 "})
		if err != nil {
			t.Skip()
		}
		s := withValidators(t, mustCompile(t, `{"type": "object"}`), enforce.PII("pii", every...))
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
