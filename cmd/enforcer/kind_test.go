package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// wantAsTheLibrary runs check with args and the answer on standard
// input, and holds its status and output to what schema's Check gives:
// 0 and "pass" (after "repaired: …" and the mended answer when a repair
// applied), or 1 and the corrective message.
func wantAsTheLibrary(t *testing.T, schema *enforce.Schema, answer string, args ...string) {
	t.Helper()
	code, stdout, stderr := runCmd(t.Context(), answer, append(append([]string{"check"}, args...), "-")...)
	if stderr != "" {
		t.Errorf("stderr %q", stderr)
	}
	want, wantCode := "pass\n", exitOK
	var ce *enforce.CheckError
	if err := schema.Check(answer); errors.As(err, &ce) {
		want, wantCode = ce.Corrective(1, 2), exitFail
	} else if err != nil {
		t.Fatal(err)
	}
	if mended, applied := schema.Repaired(answer); applied != 0 {
		if wantCode == exitOK {
			want = "mended answer:\n" + mended + "\n" + want
		}
		want = "repaired: " + applied.String() + "\n" + want
	}
	if code != wantCode || strings.TrimSuffix(stdout, "\n") != strings.TrimSuffix(want, "\n") {
		t.Errorf("check %q of %q: status %d, stdout:\n%s\nwant %d and:\n%s", args, answer, code, stdout, wantCode, want)
	}
}

func TestCheckJudgesAChoiceAsTheLibraryDoes(t *testing.T) {
	names := []enforce.Label{{Name: "positive"}, {Name: "negative"}, {Name: "mixed"}}
	described := []enforce.Label{{Name: "billing", Description: "money matters"}, {Name: "urgent", Description: "needs action today"}}
	labelsFile := write(t, "labels.tsv", "billing\tmoney matters\n\nurgent\t needs action today\r\n")
	choice := func(labels []enforce.Label, multi bool, rs enforce.Repairs) *enforce.Schema {
		t.Helper()
		build := enforce.Choice
		if multi {
			build = enforce.MultiLabel
		}
		s, err := build(labels...)
		if err != nil {
			t.Fatal(err)
		}
		return s.WithRepairs(rs)
	}
	tests := []struct {
		name   string
		schema *enforce.Schema
		answer string
		args   []string
	}{
		{"a label", choice(names, false, 0), "positive", []string{"-choice", "positive, negative, mixed"}},
		{"a near-miss label, no repair: the correction names the labels", choice(names, false, 0), "Positive.", []string{"-choice", "positive,negative,mixed"}},
		{"a near-miss label with -repair label: the mended label passes", choice(names, false, enforce.RepairLabel), "Positive.\n",
			[]string{"-choice", "positive,negative,mixed", "-repair", "label"}},
		{"prose", choice(names, false, enforce.AllRepairs), "The reviewer liked it.", []string{"-choice", "positive,negative,mixed", "-repair", "all"}},
		{"the object form", choice(names, false, 0), `{"label":"mixed"}`, []string{"-choice", "positive,negative,mixed"}},
		{"labels with descriptions from a file", choice(described, false, 0), "urgent", []string{"-labels", labelsFile}},
		{"a set of labels", choice(described, true, 0), `["billing","urgent"]`, []string{"-labels", labelsFile, "-multi-label"}},
		{"a set with a label twice", choice(described, true, 0), `["billing","billing"]`, []string{"-multi-label", "-labels", labelsFile}},
		{"a set with a near miss, no repair", choice(names, true, 0), `["positive","Mixed"]`, []string{"-choice", "positive,negative,mixed", "-multi-label"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantAsTheLibrary(t, tt.schema, tt.answer, tt.args...) })
	}
	t.Run("the file's descriptions reach the contract", func(t *testing.T) {
		// A corrective message names labels only; the descriptions are
		// the contract's, in its instructions.
		got, err := (&kindFlags{labels: &labelsFile, choice: new(string)}).labelList()
		if err != nil || len(got) != 2 || got[0] != described[0] || got[1] != described[1] {
			t.Errorf("labels read = %+v, %v; want %+v", got, err, described)
		}
	})
}

func TestCheckJudgesATextAsTheLibraryDoes(t *testing.T) {
	text := func(rules ...enforce.TextRule) *enforce.Schema {
		t.Helper()
		s, err := enforce.Text(rules...)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	every := text(enforce.MinLength(5), enforce.MaxLength(40), enforce.MinBytes(5), enforce.MaxBytes(60),
		enforce.Pattern(`^[A-Z]`), enforce.Pattern(`\.$`), enforce.MustContain("Paris"), enforce.MustContain("21"),
		enforce.MustNotContain("as an AI"), enforce.MustNotContain("!"))
	everyArgs := []string{"-text", "-min-length", "5", "-max-length", "40", "-min-bytes", "5", "-max-bytes", "60",
		"-pattern", `^[A-Z]`, "-pattern", `\.$`, "-must-contain", "Paris", "-must-contain", "21",
		"-must-not-contain", "as an AI", "-must-not-contain", "!"}
	tests := []struct {
		name   string
		schema *enforce.Schema
		answer string
		args   []string
	}{
		{"a text that keeps every rule", every, "Paris: sunny, 21 degrees.", everyArgs},
		{"a text that breaks many: each is an issue, in the rules' order", every, "well, as an AI I cannot say what Paris will be like tomorrow!", everyArgs},
		{"a text with no rules", text(), "anything at all", []string{"-text"}},
		{"a forbidden substring alone", text(enforce.MustNotContain("as an AI")), "Well, as an AI", []string{"-text", "-must-not-contain", "as an AI"}},
		{"characters, not bytes", text(enforce.MaxLength(3)), "héé", []string{"-max-length", "3", "-text"}},
		{"bytes, not characters", text(enforce.MaxBytes(3)), "héé", []string{"-text", "-max-bytes", "3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantAsTheLibrary(t, tt.schema, tt.answer, tt.args...) })
	}
}

func TestCheckRefusesKindFlagsThatDoNotGoTogether(t *testing.T) {
	schemaPath := write(t, "schema.json", citySchema)
	answerPath := write(t, "answer.txt", "positive")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"-choice and -labels", []string{"-choice", "a,b", "-labels", answerPath}, "-choice and -labels"},
		{"-text and -choice", []string{"-text", "-choice", "a,b"}, "two contracts"},
		{"-multi-label alone", []string{"-multi-label", schemaPath}, "-multi-label needs"},
		{"a text rule without -text", []string{"-max-length", "3", schemaPath}, "-max-length is a rule of -text"},
		{"a SCHEMA beside -choice", []string{"-choice", "a,b", schemaPath}, "no SCHEMA file"},
		{"labels the library refuses", []string{"-choice", "a,A"}, "labels"},
		{"an empty label", []string{"-choice", "a,,b"}, "labels"},
		{"a pattern that does not compile", []string{"-text", "-pattern", "("}, "pattern"},
		{"a negative bound", []string{"-text", "-max-bytes", "-1"}, "-text"},
		{"a missing labels file", []string{"-labels", schemaPath + ".none"}, "-labels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t.Context(), "", append(append([]string{"check"}, tt.args...), answerPath)...)
			wantOneLineError(t, code, stdout, stderr, tt.want)
		})
	}
}

// The help names every repair, from enforce's list: a repair added there
// is named here without an edit.
func TestCheckHelpNamesEveryRepair(t *testing.T) {
	code, stdout, _ := runCmd(t.Context(), "", "check", "-h")
	if code != exitOK {
		t.Fatalf("check -h: status %d", code)
	}
	_, help, _ := strings.Cut(stdout, "  -repair LIST\n")
	help, _, _ = strings.Cut(help, "\n")
	for _, name := range strings.Split(enforce.AllRepairs.String(), ",") {
		if !strings.Contains(help, " "+name+",") && !strings.Contains(help, " "+name+";") {
			t.Errorf("check -h's -repair does not name %q:\n%s", name, help)
		}
	}
	for _, flag := range []string{"-choice LABELS", "-labels FILE", "-multi-label", "-text", "-must-not-contain S"} {
		if !strings.Contains(stdout, "  "+flag+"\n") {
			t.Errorf("check -h does not list %s", flag)
		}
	}
}
