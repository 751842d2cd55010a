package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/enforcer-go/enforcer/enforce"
)

// kindUsage is check's second usage line: a contract of an output kind,
// given by flags instead of a SCHEMA file.
const kindUsage = "       enforcer check (-choice LABELS | -labels FILE) [-multi-label] [flags] ANSWER\n" +
	"       enforcer check -text [-min-length N] [-max-length N] [-min-bytes N] [-max-bytes N] [-pattern RE] [-must-contain S] [-must-not-contain S] [flags] ANSWER\n"

// kindFlags are check's flags for a contract of an output kind
// (enforce.Choice, enforce.MultiLabel, enforce.Text).
type kindFlags struct {
	choice, labels                           *string
	multi, text                              *bool
	minLength, maxLength, minBytes, maxBytes *int
	patterns, mustContain, mustNotContain    strs
}

// strs is a flag that may be given more than once, each value kept.
type strs []string

func (s *strs) String() string     { return strings.Join(*s, ", ") }
func (s *strs) Set(v string) error { *s = append(*s, v); return nil }

// textRules are the names of the flags of a text's rules.
var textRules = []string{"min-length", "max-length", "min-bytes", "max-bytes", "pattern", "must-contain", "must-not-contain"}

func addKindFlags(fs *flag.FlagSet) *kindFlags {
	k := &kindFlags{
		choice: fs.String("choice", "", "the contract is one of the `LABELS`, comma-separated (enforce.Choice), instead of a SCHEMA file"),
		labels: fs.String("labels", "", "the contract is one of the labels in `FILE`, one a line, each with an optional description after a tab, instead of a SCHEMA file"),
		multi:  fs.Bool("multi-label", false, "with -choice or -labels: the answer is a set of the labels (enforce.MultiLabel)"),
		text:   fs.Bool("text", false, "the contract is plain text (enforce.Text) held to the rule flags given with it, instead of a SCHEMA file"),

		minLength: fs.Int("min-length", 0, "with -text: at least `N` characters (Unicode code points)"),
		maxLength: fs.Int("max-length", 0, "with -text: at most `N` characters (Unicode code points)"),
		minBytes:  fs.Int("min-bytes", 0, "with -text: at least `N` bytes of UTF-8"),
		maxBytes:  fs.Int("max-bytes", 0, "with -text: at most `N` bytes of UTF-8"),
	}
	fs.Var(&k.patterns, "pattern", "with -text: `RE`, a Go regular expression (RE2 syntax), must match somewhere in the text; repeatable")
	fs.Var(&k.mustContain, "must-contain", "with -text: the text must contain `S`, byte for byte; repeatable")
	fs.Var(&k.mustNotContain, "must-not-contain", "with -text: the text must not contain `S`, byte for byte; repeatable")
	return k
}

// contract returns the contract the kind flags set in fs give, nil when
// none of them was set: the contract is then the SCHEMA file's.
func (k *kindFlags) contract(fs *flag.FlagSet) (*enforce.Schema, error) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	labelled := set["choice"] || set["labels"]
	switch {
	case set["choice"] && set["labels"]:
		return nil, fmt.Errorf("check: -choice and -labels both give the labels: give one")
	case labelled && *k.text:
		return nil, fmt.Errorf("check: -text and a choice's labels are two contracts: give one")
	case set["multi-label"] && !labelled:
		return nil, fmt.Errorf("check: -multi-label needs the labels of -choice or -labels")
	}
	if !*k.text {
		for _, r := range textRules {
			if set[r] {
				return nil, fmt.Errorf("check: -%s is a rule of -text", r)
			}
		}
	}
	switch {
	case labelled:
		labels, err := k.labelList()
		if err != nil {
			return nil, err
		}
		choose := enforce.Choice
		if *k.multi {
			choose = enforce.MultiLabel
		}
		s, err := choose(labels...)
		if err != nil {
			return nil, fmt.Errorf("check: labels: %w", err)
		}
		return s, nil
	case *k.text:
		var rules []enforce.TextRule
		for _, b := range []struct {
			name string
			n    int
			rule func(int) enforce.TextRule
		}{{"min-length", *k.minLength, enforce.MinLength}, {"max-length", *k.maxLength, enforce.MaxLength},
			{"min-bytes", *k.minBytes, enforce.MinBytes}, {"max-bytes", *k.maxBytes, enforce.MaxBytes}} {
			if set[b.name] {
				rules = append(rules, b.rule(b.n))
			}
		}
		for _, list := range []struct {
			vs   []string
			rule func(string) enforce.TextRule
		}{{k.patterns, enforce.Pattern}, {k.mustContain, enforce.MustContain}, {k.mustNotContain, enforce.MustNotContain}} {
			for _, v := range list.vs {
				rules = append(rules, list.rule(v))
			}
		}
		s, err := enforce.Text(rules...)
		if err != nil {
			return nil, fmt.Errorf("check: -text: %w", err)
		}
		return s, nil
	}
	return nil, nil
}

// labelList reads the labels of -choice, or of the file -labels names.
func (k *kindFlags) labelList() ([]enforce.Label, error) {
	var labels []enforce.Label
	if *k.labels == "" {
		for _, name := range strings.Split(*k.choice, ",") {
			labels = append(labels, enforce.Label{Name: strings.TrimSpace(name)})
		}
		return labels, nil
	}
	b, err := readBounded(*k.labels, nil, maxSchemaBytes)
	if err != nil {
		return nil, fmt.Errorf("check: -labels: %w", err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		name, desc, _ := strings.Cut(line, "\t")
		if name = strings.TrimSpace(name); name == "" {
			return nil, fmt.Errorf("check: -labels: %s line %s has a description and no label", *k.labels, strconv.Itoa(i+1))
		}
		labels = append(labels, enforce.Label{Name: name, Description: strings.TrimSpace(desc)})
	}
	return labels, nil
}
