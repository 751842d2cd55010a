// Command enforcer checks answers against an output contract, says what a
// provider's native mode enforces of one, and watches session logs,
// offline.
//
//	enforcer check [-attempt N] [-retries M] [-repair LIST] SCHEMA ANSWER
//	enforcer check (-choice LABELS | -labels FILE) [-multi-label] [-repair LIST] ANSWER
//	enforcer check -text [-max-length N] [-must-not-contain S] [...] ANSWER
//	enforcer check -tool NAME [-repair LIST] SCHEMA ARGUMENTS
//	enforcer tail [-follow=false] LOG
//	enforcer view [-addr HOST:PORT] LOG
//	enforcer schema [-provider P] FILE
//	enforcer eval [-repair LIST] [-by FIELD] [-json|-md] [-fail-under RATE=MIN] DATASET
//	enforcer eval -model M [-provider P] [-base-url URL] [-retries N] [-runs N] [-concurrency C] DATASET
//	enforcer eval -compare [-tolerance T] OLD.json NEW.json
//
// Flags may come before, between or after the operands, as in
// "enforcer schema FILE -provider anthropic"; -- ends the flags, for a
// file whose name starts with a dash.
//
// check judges ANSWER (a file, or - for standard input) against the JSON
// Schema in SCHEMA exactly as the library does (enforce.CompileSchema,
// then Schema.Check): it prints "pass" and exits 0, or prints the
// corrective message a run would send the model and exits 1. With
// -repair (a comma-separated list of the repairs check -h names, or all),
// an answer that fails as written is judged as those repairs mend it
// (Schema.WithRepairs): it prints "repaired: …" first, and the mended
// answer before "pass". A FIFO is refused as either file, since opening
// one waits for a writer; pipe it to standard input instead. Flags give
// the contract of an output kind instead of SCHEMA: -choice a,b,c (or
// -labels FILE, one label a line and its description after a tab) for
// one label of a set (enforce.Choice), with -multi-label for a set of
// them (enforce.MultiLabel); -text for plain text (enforce.Text) held to
// -min-length, -max-length, -min-bytes, -max-bytes, -pattern,
// -must-contain and -must-not-contain, the last three repeatable. With
// -tool NAME, the file judged holds a recorded call's arguments and SCHEMA
// is the tool's parameters: judged as the agent judges a call
// (enforce.CallLedger), it prints "pass", or the tool message the model
// would get.
//
// tail prints each record of a file log (events.OpenFile's format) as
// one line for people — its time, its turn and Notification.Describe's
// words — and then follows the file as it grows, until interrupted;
// -follow=false stops at its end.
//
// view serves the live session page for a file log on localhost at /
// (any other path is 404), prints its URL, and follows the file until interrupted: the records appended
// to it reach the open page as they land (events.Follow). An empty log is
// served too: a session whose first record has not landed yet. It answers only
// requests for localhost or a loopback IP at its port (else 403), so a web
// page cannot read the session through DNS rebinding.
//
// schema prints how a provider's native structured-output mode is sent
// the JSON Schema in FILE (native.Lower with the profile P: openai,
// anthropic, gemini, vllm, llama.cpp or ollama): strict, non-strict or
// not at all and why, and a table of the schema's keywords, each enforced
// by the provider and enforcer or by enforcer only.
//
// eval judges each record of DATASET (JSON Lines: schema, output, and
// optionally id, model, expected, tool; package eval says more) as check does,
// as written and with -repair's repairs, and prints the figures by model
// (or by the field -by names): a table, -json (a contract, docs/eval.md)
// or -md; -html FILE also writes it as a self-contained page with
// charts. A schema given as a path is read relative to the dataset's
// folder. -fail-under RATE=MIN exits 1 when a group's rate is under MIN,
// naming the groups. With -model, records hold a prompt instead of an
// output and run live through the agent over the adapter -provider names
// (openai, anthropic, gemini; the key from OPENAI_API_KEY,
// ANTHROPIC_API_KEY or GEMINI_API_KEY, never printed): first-try and
// after-retry passes, exhausted runs, tokens and latency by model. eval
// -compare holds NEW, a -json report, against
// OLD: each rate that fell by more than -tolerance, or a group NEW lacks,
// is a regression, and it exits 1.
//
// tail and view read the log as events.FollowFile does, without locking it, so
// they may watch a session that another process is writing. Bad arguments and files that cannot be read
// get a one-line error and exit status 2; so does a damaged log, or a file
// that is not one, naming its first line that is not a record and why (a
// last line that is not JSON is taken for a torn write, and waited on).
// tail prints the records before the damage first: a log torn past its
// 16 MiB line bound by a crash, or damaged in its middle, shows what was
// written before.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1 // the answer broke its contract
	exitUsage = 2 // bad arguments, a file that cannot be read, a damaged log
)

const usage = `usage:
  enforcer check [-attempt N] [-retries M] [-repair LIST] SCHEMA ANSWER   judge an answer (- reads standard input)
  enforcer check -choice LABELS [-multi-label] ANSWER     judge a label (or -labels FILE; check -h says more)
  enforcer check -text [-max-length N] [-must-not-contain S] ANSWER   judge a text held to rules
  enforcer check -tool NAME [-repair LIST] SCHEMA ARGUMENTS   judge a tool call's arguments
  enforcer tail [-follow=false] LOG                        print a session log, following it
  enforcer view [-addr HOST:PORT] LOG                      serve the live page for a session log
  enforcer schema [-provider P] FILE                       what a provider's native mode enforces of a schema
  enforcer eval [-repair LIST] [-by FIELD] [-json|-md] [-junit FILE] [-fail-under [RATE=]MIN] DATASET
                                                           how a dataset's recorded answers keep their contracts
  enforcer eval -model M [-provider P] [-base-url URL] DATASET   the same, run live through a model
  enforcer eval -compare [-tolerance T] OLD.json NEW.json  what moved between two eval -json reports
flags may also come after the operands; -- ends the flags
`

// run is the command: it parses args, runs the subcommand and returns the
// exit status. It writes nothing but to stdout and stderr.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	var err error
	code := exitOK
	switch args[0] {
	case "check":
		code, err = check(args[1:], stdin, stdout)
	case "tail":
		err = tail(ctx, args[1:], stdout)
	case "view":
		err = view(ctx, args[1:], stdout)
	case "schema":
		err = schemaCmd(args[1:], stdout)
	case "eval":
		code, err = evalCmd(ctx, args[1:], stdin, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		err = fmt.Errorf("unknown command %q (want check, eval, tail, view or schema)", args[0])
	}
	var help helpError
	if errors.As(err, &help) {
		fmt.Fprint(stdout, help)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "enforcer: %s\n", oneLine(err.Error()))
		return exitUsage
	}
	return code
}
