package oracle_test

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// oracle is the independent validator's verdict function for one schema.
type oracle func(doc []byte) (valid bool, err error)

// noNetwork refuses every load: a schema that refers outside itself is
// not one the oracle judges.
type noNetwork struct{}

func (noNetwork) Load(url string) (any, error) {
	return nil, fmt.Errorf("oracle: %s is outside the schema", url)
}

const schemaURL = "https://oracle.invalid/schema.json"

// compileOracle compiles schema with santhosh-tekuri/jsonschema as enforce
// reads it: no $schema means draft-07, formats are asserted before
// 2019-09 and annotations after.
func compileOracle(schema []byte) (oracle, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.UseLoader(noNetwork{})
	for _, f := range oracleFormats {
		c.RegisterFormat(f)
	}
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, err
	}
	return func(answer []byte) (bool, error) {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(answer))
		if err != nil {
			return false, err
		}
		err = s.Validate(v)
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return false, nil
		}
		return err == nil, err
	}, nil
}

// oracleFormats correct the oracle where it departs from the drafts:
// semver and period are no format of theirs, so they assert nothing; and
// its uri family reads text with net/url, which takes characters RFC 3986
// excludes (a space, a quote, braces), so those are refused first.
var oracleFormats = []*jsonschema.Format{
	{Name: "semver", Validate: func(any) error { return nil }},
	{Name: "period", Validate: func(any) error { return nil }},
	{Name: "uri", Validate: rfc3986(true)},
	{Name: "uri-reference", Validate: rfc3986(false)},
}

func rfc3986(abs bool) func(any) error {
	return func(v any) error {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		for _, r := range s {
			if r <= ' ' || r >= 0x7f || strings.ContainsRune("\"<>\\^`{|}", r) {
				return fmt.Errorf("%q is outside RFC 3986's characters", r)
			}
		}
		u, err := url.Parse(s)
		if err != nil {
			return err
		}
		if abs && !u.IsAbs() {
			return errors.New("not an absolute URI")
		}
		return nil
	}
}

// enforceVerdict is enforce's verdict on answer, with a panic reported as
// an error.
func enforceVerdict(s *enforce.Schema, answer []byte) (valid bool, crash error) {
	defer func() {
		if r := recover(); r != nil {
			crash = fmt.Errorf("Check panicked: %v", r)
		}
	}()
	return s.Check(string(answer)) == nil, nil
}

// compileEnforce is CompileSchema with a panic reported as an error.
func compileEnforce(schema []byte) (s *enforce.Schema, err error, crash error) {
	defer func() {
		if r := recover(); r != nil {
			crash = fmt.Errorf("CompileSchema panicked: %v", r)
		}
	}()
	s, err = enforce.CompileSchema(schema)
	return s, err, nil
}
