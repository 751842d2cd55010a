package eval_test

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/eval"
)

// junitXML is the Ant JUnit structure CI tools read (Jenkins, GitLab,
// GitHub Actions' reporters): testsuites of testsuite of testcase, a
// failing case holding a failure with its message.
type junitXML struct {
	XMLName xml.Name `xml:"testsuites"`
	Suites  []struct {
		Name     string `xml:"name,attr"`
		Tests    *int   `xml:"tests,attr"`
		Failures *int   `xml:"failures,attr"`
		Errors   *int   `xml:"errors,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message *string `xml:"message,attr"`
				Type    string  `xml:"type,attr"`
				Text    string  `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message *string `xml:"message,attr"`
			} `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnitIsOneTestCasePerRecordGroupedByGroup(t *testing.T) {
	hostile := `{"id":"b3 <\"&>","model":"b","schema":` + cityJSON + `,"output":"</failure><x>\u0001"}`
	rep := offline(t, dataset+"\n"+hostile, eval.Options{Repairs: enforce.AllRepairs})
	var buf bytes.Buffer
	if err := eval.WriteJUnit(&buf, rep); err != nil {
		t.Fatal(err)
	}
	var got junitXML
	d := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	d.Strict = true
	if err := d.Decode(&got); err != nil {
		t.Fatalf("the JUnit file does not parse back: %v\n%s", err, buf.String())
	}
	if len(got.Suites) != 2 || got.Suites[0].Name != "a" || got.Suites[1].Name != "b" {
		t.Fatalf("suites = %+v, want a and b", got.Suites)
	}
	a, b := got.Suites[0], got.Suites[1]
	if a.Tests == nil || *a.Tests != 2 || a.Failures == nil || *a.Failures != 0 || len(a.Cases) != 2 || a.Cases[1].Name != "a2" || a.Cases[1].Classname != "a" || a.Cases[1].Failure != nil {
		t.Errorf("suite a = %+v, want 2 tests, none failing (a2 mended)", a)
	}
	if b.Tests == nil || *b.Tests != 3 || b.Failures == nil || *b.Failures != 2 || b.Errors == nil || *b.Errors != 1 || len(b.Cases) != 3 {
		t.Fatalf("suite b = %+v, want 3 tests, 2 failing, 1 error (a schema that does not compile)", b)
	}
	b1 := b.Cases[0]
	if b1.Failure == nil || b1.Failure.Message == nil || !strings.HasPrefix(*b1.Failure.Message, "schema-validate at #/tempC: ") || b1.Failure.Type != "schema-validate" {
		t.Errorf("b1's failure = %+v, want its stage and first issue", b1.Failure)
	}
	if b2 := b.Cases[1]; b2.Error == nil || b2.Error.Message == nil || b2.Failure != nil {
		t.Errorf("b2 = %+v, want an error: its schema did not compile", b2)
	}
	if b3 := b.Cases[2]; b3.Name != `b3 <"&>` || b3.Failure == nil || !strings.HasPrefix(*b3.Failure.Message, "json-parse at #") {
		t.Errorf("the hostile record = %+v, want its name as text and a json-parse failure", b3)
	}
}
