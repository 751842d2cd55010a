package enforce_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// Helpers that the package's tests share.

func mustCompile(t testing.TB, schema string) *enforce.Schema {
	t.Helper()
	s, err := enforce.CompileSchema([]byte(schema))
	if err != nil {
		t.Fatalf("CompileSchema(%s): %v", schema, err)
	}
	return s
}

// checkError returns Check's *CheckError, failing the test when Check
// returned something else.
func checkError(t *testing.T, err error) *enforce.CheckError {
	t.Helper()
	var ce *enforce.CheckError
	if !errors.As(err, &ce) {
		t.Fatalf("Check returned %T (%v), want *enforce.CheckError", err, err)
	}
	if len(ce.Issues) == 0 {
		t.Fatal("CheckError has no issues")
	}
	return ce
}

func outcomes(rows []enforce.Attempt) []enforce.Outcome {
	out := make([]enforce.Outcome, len(rows))
	for i, r := range rows {
		out[i] = r.Outcome
	}
	return out
}

func withValidators(t *testing.T, s *enforce.Schema, vs ...enforce.Validator) *enforce.Schema {
	t.Helper()
	c, err := s.WithValidators(vs...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// orderAnswer is a passing answer of about 1 KiB: a dozen line items, a
// nested object, strings and integers.
func orderAnswer() string {
	var b strings.Builder
	b.WriteString(`{"orderId": "ORD-20240501", "placed": "2024-05-01T10:00:00Z", "status": "paid",`)
	b.WriteString(`"customer": {"name": "Ada Lovelace", "email": "ada@example.com", "address": {"street": "12 St James's Square", "city": "London", "zip": "SW1Y 4JH"}},`)
	b.WriteString(`"items": [`)
	total := 0
	for i := range 12 {
		if i > 0 {
			b.WriteString(", ")
		}
		qty, price := i%3+1, 199+i*150
		total += qty * price
		fmt.Fprintf(&b, `{"sku": "SKU-%04d", "qty": %d, "priceCents": %d, "gift": %t}`, 1000+i, qty, price, i%4 == 0)
	}
	fmt.Fprintf(&b, `], "total": %d}`, total)
	return b.String()
}
