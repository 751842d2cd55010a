package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/enforcer-go/enforcer/enforce"
)

// maxSchemaBytes bounds the schema file check reads.
const maxSchemaBytes = 16 << 20

// check is `enforcer check`: exitOK and "pass" when the answer keeps the
// contract, exitFail and the corrective message when it does not.
func check(args []string, stdin io.Reader, stdout io.Writer) (int, error) {
	fs := newFlags("check")
	attempt := fs.Int("attempt", 1, "the attempt the answer is, for the corrective message (1..retries)")
	retries := fs.Int("retries", 1, fmt.Sprintf("the output retries of the run (1..%d), as agent.WithOutputRetries", enforce.MaxRetries))
	// The names come from enforce, their one home, so that a repair added
	// there is named here too.
	repair := fs.String("repair", "", "the repairs in `LIST` to apply to an answer that fails as written, comma-separated: "+
		strings.ReplaceAll(enforce.AllRepairs.String(), ",", ", ")+"; or all (as enforce.ParseRepairs)")
	tool := fs.String("tool", "", "judge ANSWER as the arguments of a call of the tool `NAME`, SCHEMA its parameters (as the agent judges a call)")
	kind := addKindFlags(fs)
	files, err := parseAll(fs, args, []string{"SCHEMA", "ANSWER"})
	if h, ok := err.(helpError); ok {
		usage, flags, _ := strings.Cut(string(h), "\n")
		return 0, helpError(usage + "\n" + kindUsage + flags)
	}
	if err != nil {
		return 0, err
	}
	schema, err := kind.contract(fs)
	if err != nil {
		return 0, err
	}
	if *tool != "" && schema != nil {
		return 0, errors.New("check: -tool judges arguments against a SCHEMA file: no -choice, -labels or -text")
	}
	operands := []string{"SCHEMA", "ANSWER"}
	if schema != nil {
		operands = operands[1:]
	}
	if err := wantOperands(fs, files, operands); err != nil {
		if schema != nil {
			return 0, fmt.Errorf("%w: the flags give the contract, so no SCHEMA file", err)
		}
		return 0, err
	}
	switch {
	case *retries < 1 || *retries > enforce.MaxRetries:
		return 0, fmt.Errorf("check: -retries %d is not in 1..%d", *retries, enforce.MaxRetries)
	case *attempt < 1 || *attempt > *retries:
		return 0, fmt.Errorf("check: -attempt %d is not in 1..%d (the attempts a corrective turn follows)", *attempt, *retries)
	}
	repairs, err := enforce.ParseRepairs(*repair)
	if err != nil {
		return 0, fmt.Errorf("check: -repair: %w", err)
	}
	if schema == nil {
		schemaText, err := readBounded(files[0], nil, maxSchemaBytes)
		if err != nil {
			return 0, fmt.Errorf("check: schema: %w", err)
		}
		if schema, err = enforce.CompileSchema(schemaText); err != nil {
			return 0, fmt.Errorf("check: schema %s: %w", files[0], err)
		}
	}
	schema = schema.WithRepairs(repairs)
	if *tool != "" {
		return checkCall(*tool, schema, files[1], stdin, stdout)
	}
	// One byte past the size bound is enough for Check to refuse an
	// answer as too long, without holding all of it.
	answer, err := readBounded(files[len(files)-1], stdin, enforce.MaxAnswerBytes+1)
	if err != nil && !errors.Is(err, errTooLong) {
		return 0, fmt.Errorf("check: answer: %w", err)
	}
	var ce *enforce.CheckError
	mended, applied := schema.Repaired(string(answer))
	if applied != 0 {
		fmt.Fprintf(stdout, "repaired: %s\n", applied)
	}
	switch err := schema.Check(string(answer)); {
	case err == nil:
		if applied != 0 {
			fmt.Fprintf(stdout, "mended answer:\n%s\n", strings.TrimRight(mended, "\n"))
		}
		fmt.Fprintln(stdout, "pass")
		return exitOK, nil
	case errors.As(err, &ce):
		msg := ce.Corrective(*attempt, *retries+1)
		fmt.Fprint(stdout, msg)
		if !strings.HasSuffix(msg, "\n") {
			fmt.Fprintln(stdout)
		}
		return exitFail, nil
	default:
		return 0, fmt.Errorf("check: %w", err)
	}
}

// checkCall judges the arguments in file as a call of tool whose
// parameters are s, as the agent judges one (enforce.CallLedger): "pass",
// after what was mended, or the tool message the model would get.
func checkCall(tool string, s *enforce.Schema, file string, stdin io.Reader, stdout io.Writer) (int, error) {
	args, err := readBounded(file, stdin, enforce.MaxAnswerBytes+1)
	if err != nil && !errors.Is(err, errTooLong) {
		return 0, fmt.Errorf("check: arguments: %w", err)
	}
	l, _ := enforce.NewCallLedger(0, 0) // no limit, no repeats: in bounds
	v := l.Judge(s, enforce.Call{Tool: tool, Arguments: string(args)})
	if v.Row.Repaired != 0 {
		fmt.Fprintf(stdout, "repaired: %s\n", v.Row.Repaired)
	}
	if v.Err != nil {
		fmt.Fprint(stdout, v.Message)
		if !strings.HasSuffix(v.Message, "\n") {
			fmt.Fprintln(stdout)
		}
		return exitFail, nil
	}
	if v.Row.Repaired != 0 {
		fmt.Fprintf(stdout, "mended arguments:\n%s\n", strings.TrimRight(v.Arguments, "\n"))
	}
	fmt.Fprintln(stdout, "pass")
	return exitOK, nil
}

var errTooLong = errors.New("file is too long")

// readBounded reads at most limit bytes of the file name ("-" is stdin),
// and errTooLong with them when the file holds more. A FIFO is refused
// before it is opened: opening one blocks until something writes to it.
func readBounded(name string, stdin io.Reader, limit int64) ([]byte, error) {
	var r io.Reader
	if name == "-" && stdin != nil {
		r = stdin
	} else {
		if fi, err := os.Stat(name); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
			return nil, fmt.Errorf("%s is a FIFO, whose open waits for a writer; pipe it to standard input (-) instead", name)
		}
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(b)) > limit {
		return b[:limit], fmt.Errorf("%s: %w (over %d bytes)", name, errTooLong, limit)
	}
	return b, nil
}

// oneLine makes an error message one line of at most 400 bytes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 400 {
		s = strings.ToValidUTF8(s[:400], "") + "…" // a rune split in two is dropped
	}
	return s
}
