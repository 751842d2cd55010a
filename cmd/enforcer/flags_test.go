package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every subcommand takes its flags before, between or after its operands,
// and means the same by them: a flag after FILE is no extra argument.
func TestFlagsMayComeBeforeOrAfterTheOperands(t *testing.T) {
	schemaPath := write(t, "schema.json", citySchema)
	answerPath := write(t, "answer.txt", `{"days":0}`)
	logPath, _ := writeLog(t, session...)
	tests := []struct {
		name          string
		before, after []string // the same command, flags first and flags last
	}{
		{"schema with -provider after FILE",
			[]string{"schema", "-provider", "anthropic", schemaPath},
			[]string{"schema", schemaPath, "-provider", "anthropic"}},
		{"check with -attempt and -retries after ANSWER",
			[]string{"check", "-attempt", "2", "-retries", "3", schemaPath, answerPath},
			[]string{"check", schemaPath, answerPath, "-attempt", "2", "-retries", "3"}},
		{"check with -retries between SCHEMA and ANSWER",
			[]string{"check", "-retries=3", schemaPath, answerPath},
			[]string{"check", schemaPath, "-retries=3", answerPath}},
		{"check with - for standard input and a flag after it",
			[]string{"check", "-retries", "2", schemaPath, "-"},
			[]string{"check", schemaPath, "-", "-retries", "2"}},
		{"tail with -follow=false after LOG",
			[]string{"tail", "-follow=false", logPath},
			[]string{"tail", logPath, "-follow=false"}},
		{"view with an -addr it refuses after LOG",
			[]string{"view", "-addr", "0.0.0.0:0", logPath},
			[]string{"view", logPath, "-addr", "0.0.0.0:0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name+" does what it does with the flags first", func(t *testing.T) {
			wantCode, wantOut, wantErr := runCmd(bounded(t), `{"city":1}`, tt.before...)
			code, stdout, stderr := runCmd(bounded(t), `{"city":1}`, tt.after...)
			if code != wantCode || stdout != wantOut || stderr != wantErr {
				t.Errorf("%q: status %d, stdout:\n%s\nstderr %q\nwant, as %q: %d, stdout:\n%s\nstderr %q",
					tt.after, code, stdout, stderr, tt.before, wantCode, wantOut, wantErr)
			}
			if wantCode == exitUsage && !strings.Contains(wantErr, "not a loopback address") {
				t.Errorf("%q is refused: %s", tt.before, wantErr)
			}
		})
	}
}

// After "--" every argument is an operand, even one that looks like a
// flag.
func TestADoubleDashEndsTheFlags(t *testing.T) {
	path, _ := writeLog(t, session...)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "-follow=true"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	code, stdout, stderr := runCmd(bounded(t), "", "tail", "-follow=false", "--", "-follow=true")
	if got, want := stdout, strings.Join(sessionLines, "\n")+"\n"; code != exitOK || got != want || stderr != "" {
		t.Errorf("tail of a log named -follow=true: status %d, stdout:\n%s\nstderr %q; want 0 and:\n%s", code, got, stderr, want)
	}
}

func TestTheWrongNumberOfOperandsIsCountedInWords(t *testing.T) {
	schemaPath := write(t, "schema.json", citySchema)
	tests := []struct {
		name string
		args []string
		want string // all of stderr but "enforcer: " and the newline
	}{
		{"check without operands", []string{"check"}, "check: want SCHEMA and ANSWER, got 0 arguments"},
		{"check with one operand", []string{"check", schemaPath}, "check: want SCHEMA and ANSWER, got 1 argument"},
		{"check with a flag and one operand", []string{"check", "-retries", "2", schemaPath}, "check: want SCHEMA and ANSWER, got 1 argument"},
		{"tail with two logs", []string{"tail", schemaPath, schemaPath}, "tail: want one LOG, got 2 arguments"},
		{"view with two logs around a flag", []string{"view", schemaPath, "-addr", "127.0.0.1:0", schemaPath}, "view: want one LOG, got 2 arguments"},
		{"schema with three files and a flag", []string{"schema", schemaPath, "-provider", "anthropic", schemaPath, schemaPath}, "schema: want one FILE, got 3 arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is refused in words that count right", func(t *testing.T) {
			code, stdout, stderr := runCmd(bounded(t), "", tt.args...)
			if got, want := stderr, "enforcer: "+tt.want+"\n"; code != exitUsage || stdout != "" || got != want {
				t.Errorf("status %d, stdout %q, stderr %q; want %d, nothing and %q", code, stdout, got, exitUsage, want)
			}
		})
	}
}
