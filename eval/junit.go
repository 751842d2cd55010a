package eval

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteJUnit writes rep's cases as JUnit XML, as CI tools read it
// (Jenkins, GitLab, GitHub Actions' reporters): a testsuite per group,
// in the report's order, and a testcase per record named by its id (or
// "line N"). A record fails when its answer fails after the repairs
// chosen (a live record: when a run ended without a passing answer), or
// a check of its ([Check]) failed; the failure's message names the stage
// and the first issues, or the check. A schema that did not compile is an
// error.
func WriteJUnit(w io.Writer, rep *Report) error {
	suites := junitSuites{Name: "enforcer eval"}
	at := map[string]int{}
	for _, g := range rep.Groups {
		at[g.Group] = len(suites.Suites)
		suites.Suites = append(suites.Suites, junitSuite{Name: suiteName(g.Group)})
	}
	for _, v := range rep.Cases {
		i, ok := at[v.Group]
		if !ok { // a case of no group: a report assembled by hand
			at[v.Group], i = len(suites.Suites), len(suites.Suites)
			suites.Suites = append(suites.Suites, junitSuite{Name: suiteName(v.Group)})
		}
		s := &suites.Suites[i]
		c := junitCase{Name: v.ID, Classname: s.Name}
		if c.Name == "" {
			c.Name = "line " + strconv.Itoa(v.Line)
		}
		if len(v.Runs) > 0 {
			var secs float64
			for _, r := range v.Runs {
				secs += r.Latency.Seconds()
			}
			c.Time = strconv.FormatFloat(secs, 'f', 3, 64)
		}
		switch {
		case v.SchemaError != "":
			c.Error = &junitFailure{Message: "the schema did not compile: " + v.SchemaError, Type: "schema"}
			s.Errors++
		case failing(v):
			c.Failure = &junitFailure{Message: failureMessage(v, 3), Type: string(v.Stage), Text: failureMessage(v, len(v.Issues))}
			s.Failures++
		case checksFailed(v) != "":
			c.Failure = &junitFailure{Message: checksFailed(v), Type: "check"}
			s.Failures++
		}
		s.Tests++
		s.Cases = append(s.Cases, c)
	}
	for _, s := range suites.Suites {
		suites.Tests += s.Tests
		suites.Failures += s.Failures
		suites.Errors += s.Errors
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	e := xml.NewEncoder(w)
	e.Indent("", "  ")
	if err := e.Encode(suites); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// failing says whether a case fails its test: offline, after the
// repairs; live, when a run ended without a passing answer.
func failing(v Verdict) bool {
	if len(v.Runs) == 0 {
		return !v.PassedAfterRepair
	}
	for _, r := range v.Runs {
		if !r.PassedAfterRetry {
			return true
		}
	}
	return false
}

// checksFailed is "check N: why" of a case's first failed check (a live
// case's, of its first run with one), or "" when none failed.
func checksFailed(v Verdict) string {
	all := []*Checks{v.Checks}
	for _, r := range v.Runs {
		all = append(all, r.Checks)
	}
	for _, c := range all {
		if c != nil && len(c.Failed) > 0 {
			return fmt.Sprintf("check %d: %s", c.Failed[0].Check, c.Failed[0].Why)
		}
	}
	return ""
}

// failureMessage is "stage at #pointer: message; …" for v's first n
// issues, or a live run's error.
func failureMessage(v Verdict, n int) string {
	var parts []string
	for _, is := range v.Issues[:min(n, len(v.Issues))] {
		parts = append(parts, fmt.Sprintf("at #%s: %s", is.Path, is.Message))
	}
	msg := strings.Join(parts, "; ")
	if more := len(v.Issues) - n; more > 0 {
		msg += fmt.Sprintf("; and %d more", more)
	}
	if v.Stage != "" {
		msg = string(v.Stage) + " " + msg
	}
	if msg == "" {
		for _, r := range v.Runs {
			if r.Error != "" {
				return "run " + strconv.Itoa(r.Run) + ": " + r.Error
			}
		}
		return "no run ended with a passing answer"
	}
	return msg
}

// suiteName shows the group "" (records without the field) as "-", as
// the command's table does.
func suiteName(g string) string {
	if g == "" {
		return "-"
	}
	return g
}

// The Ant JUnit structure.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr,omitempty"`
		Failure   *junitFailure `xml:"failure,omitempty"`
		Error     *junitFailure `xml:"error,omitempty"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",chardata"`
	}
)
