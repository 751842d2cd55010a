package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// helpError is a subcommand's usage, asked for with -h: run prints it and
// exits 0.
type helpError string

func (h helpError) Error() string { return string(h) }

// newFlags is a flag set whose errors run reports as one line.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse parses args into fs and returns the operands, which must be the
// ones named (as "SCHEMA", "ANSWER"). Flags may come before, between or
// after the operands, as people type them; "--" ends the flags. It says
// what went wrong in one line.
func parse(fs *flag.FlagSet, args []string, operands ...string) ([]string, error) {
	got, err := parseAll(fs, args, operands)
	if err != nil {
		return nil, err
	}
	return got, wantOperands(fs, got, operands)
}

// wantOperands says, in one line, when got are not the operands named.
func wantOperands(fs *flag.FlagSet, got, operands []string) error {
	if len(got) != len(operands) {
		return fmt.Errorf("%s: want %s, got %s", fs.Name(), wanted(operands), count(len(got), "argument"))
	}
	return nil
}

// parseAll is parse without the count of operands checked; operands name
// them in the usage -h prints.
func parseAll(fs *flag.FlagSet, args []string, operands []string) ([]string, error) {
	var got []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				var b strings.Builder
				fmt.Fprintf(&b, "usage: enforcer %s [flags] %s\n", fs.Name(), strings.Join(operands, " "))
				fs.SetOutput(&b)
				fs.PrintDefaults()
				return nil, helpError(b.String())
			}
			return nil, fmt.Errorf("%s: %w", fs.Name(), err)
		}
		// Parse stops at the first operand, or after "--".
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			got = append(got, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		got, args = append(got, rest[0]), rest[1:]
	}
	return got, nil
}

// wanted names the operands a subcommand wants: "one LOG", "SCHEMA and
// ANSWER".
func wanted(operands []string) string {
	if len(operands) == 1 {
		return "one " + operands[0]
	}
	return strings.Join(operands[:len(operands)-1], ", ") + " and " + operands[len(operands)-1]
}

// count is n things, singular or plural as n says: "1 argument", "0
// arguments".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
