package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/internal/wireschema"
	"github.com/enforcer-go/enforcer/providers/native"
)

// schemaCmd is `enforcer schema`: how a provider's native mode is sent
// the contract in FILE (native.Lower), as a table of its keywords, and
// the output mode agent.WithAutoOutputMode chooses for it.
func schemaCmd(args []string, stdout io.Writer) error {
	fs := newFlags("schema")
	provider := fs.String("provider", string(native.OpenAI), fmt.Sprintf("the provider's profile: one of %v", native.Profiles))
	files, err := parse(fs, args, "FILE")
	if err != nil {
		return err
	}
	text, err := readBounded(files[0], nil, maxSchemaBytes)
	if err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	// The report is for a contract the library accepts.
	if _, err := enforce.CompileSchema(text); err != nil {
		return fmt.Errorf("schema %s: %w", files[0], err)
	}
	l, err := native.Lower(text, native.Profile(*provider))
	if err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	writeReport(stdout, l.Report)
	fmt.Fprintln(stdout, autoMode(text, l.Report))
	return nil
}

// autoMode says what agent.WithAutoOutputMode (agent.Modes.Choice)
// sends a model of the provider for the contract, and why: native when
// the report is exact, else tool output, and, for a model that takes no
// tools or a root that is no object (which a tool's parameters must
// be), native when it is sent strict, else prompted.
func autoMode(contract []byte, r native.Report) string {
	exact, why := r.Exact()
	without := "prompted"
	if r.Mode == native.ModeStrict {
		without = "native"
	}
	switch {
	case exact:
		return "auto mode: native (" + why + ")"
	case !wireschema.ObjectRoot(contract):
		return "auto mode: " + without + " (" + why + "; the contract's root is not an object, as a tool's parameters must be)"
	}
	return "auto mode: tool, or " + without + " for a model that takes no tools (" + why + ")"
}

// writeReport prints a report as a table.
func writeReport(w io.Writer, r native.Report) {
	fmt.Fprintf(w, "%s: sent %s", r.Profile, r.Mode)
	if r.Reason != "" {
		fmt.Fprintf(w, " (%s)", r.Reason)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "at\tkeyword\tenforced by\tnote")
	for _, k := range r.Keywords {
		at, by, note := k.Pointer, "enforcer only", k.Note
		if at == "" {
			at = "/"
		}
		if k.Enforced {
			by = string(r.Profile) + " and enforcer"
		}
		if note == "" {
			note = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", at, k.Name, by, note)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d of %s judged by enforcer only\n", r.Dropped(), count(len(r.Keywords), "keyword"))
	if len(r.Nullable) > 0 {
		fmt.Fprintf(w, "sent as nullable, a null read back as left out: %s\n", strings.Join(r.Nullable, ", "))
	}
}
