package enforce_test

import (
	"errors"
	"os"
	"path/filepath"
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

// orderSchema and orderAnswer are the contract of an order and a passing
// answer of about 1 KiB (a dozen line items, a nested object, strings and
// integers), which the benchmarks judge. They live in
// testdata/bench so that internal/oracle times other validators on the
// very same bytes.
var orderSchema, orderAnswerText = readBench("order.schema.json"), readBench("order.answer.json")

func orderAnswer() string { return orderAnswerText }

func readBench(name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", "bench", name))
	if err != nil {
		panic(err)
	}
	return strings.TrimSuffix(string(b), "\n")
}

// ruleIssues judges answer against schema held to rule: the issues
// found, nil when it passed; any other failure ends the test.
func ruleIssues(t *testing.T, schema string, rule enforce.Validator, answer string) []enforce.Issue {
	t.Helper()
	err := withValidators(t, mustCompile(t, schema), rule).Judge(t.Context(), enforce.Answer{Given: answer})
	var ce *enforce.CheckError
	if errors.As(err, &ce) {
		return ce.Issues
	}
	if err != nil {
		t.Fatal(err)
	}
	return nil
}
