package enforce_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/enforcer-go/enforcer/enforce"
)

func ExampleGrounded() {
	sources := []string{"The committee found that the bridge was closed for repairs in March."}
	s, _ := enforce.CompileSchema([]byte(`{"type": "object", "properties": {"summary": {"type": "string"}}}`))
	s, _ = s.WithValidators(enforce.Grounded("grounded", sources...))
	answer := `{"summary": "The report says “the bridge was closed … in March” and “no one was hurt”."}`
	var ce *enforce.CheckError
	if errors.As(s.Judge(context.Background(), enforce.Answer{Given: answer}), &ce) {
		fmt.Println(ce.Issues[0].Path, ce.Issues[0].Message)
	}
	// Output:
	// /summary quotes "no one was hurt" at byte 61, which no source holds
}

func ExamplePII() {
	s, _ := enforce.CompileSchema([]byte(`{"type": "string"}`))
	s, _ = s.WithValidators(enforce.PII("ids", enforce.PIIDNI, enforce.PIIAadhaar))
	var ce *enforce.CheckError
	if errors.As(s.Judge(context.Background(), enforce.Answer{Given: `"DNI 63686694Q, Aadhaar 3414 0912 4239, order 3414 0912 4238"`}), &ce) {
		for _, is := range ce.Issues {
			fmt.Println(is.Message)
		}
	}
	// Output:
	// holds a Spanish DNI or NIE at byte 4
	// holds an Aadhaar number at byte 23
}
