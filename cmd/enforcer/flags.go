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

// parse parses args into fs, saying what went wrong in one line.
func parse(fs *flag.FlagSet, args []string, operands string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			var b strings.Builder
			fmt.Fprintf(&b, "usage: enforcer %s [flags] %s\n", fs.Name(), operands)
			fs.SetOutput(&b)
			fs.PrintDefaults()
			return helpError(b.String())
		}
		return fmt.Errorf("%s: %w", fs.Name(), err)
	}
	return nil
}
