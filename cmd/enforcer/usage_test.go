package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A mention of a subcommand with its flags, anywhere in the repository
// (Markdown, doc comments, usage text), up to the end of its code span or
// line; and a flag in it, spelled with one dash or two.
var (
	mention = regexp.MustCompile("enforcer (check|tail|view|schema)\\b([^`\n]*)")
	flagIn  = regexp.MustCompile(`(?:^|[\s\[(])(--?)([A-Za-z][\w-]*)`)
)

// TestTheRepositorySpellsEachFlagAsTheCommandDefinesIt holds every
// mention of a subcommand in the repository's Markdown and Go files to
// the flags the subcommand defines (as its -h lists them), spelled as
// its usage spells them, with one dash.
func TestTheRepositorySpellsEachFlagAsTheCommandDefinesIt(t *testing.T) {
	defined := map[string]map[string]bool{}
	for _, sub := range []string{"check", "tail", "view", "schema"} {
		code, out, stderr := runCmd(t.Context(), "", sub, "-h")
		if code != exitOK {
			t.Fatalf("enforcer %s -h: status %d, stderr %q", sub, code, stderr)
		}
		defined[sub] = map[string]bool{"h": true}
		for line := range strings.Lines(out) {
			if rest, ok := strings.CutPrefix(line, "  -"); ok {
				name, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
				name, _, _ = strings.Cut(name, "\t")
				defined[sub][name] = true
			}
		}
		if len(defined[sub]) < 2 {
			t.Fatalf("enforcer %s -h lists no flag:\n%s", sub, out)
		}
	}
	root := filepath.Join("..", "..")
	mentions := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(path); ext != ".md" && ext != ".go" {
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, m := range mention.FindAllStringSubmatch(string(text), -1) {
			mentions++
			sub := m[1]
			for _, f := range flagIn.FindAllStringSubmatch(m[2], -1) {
				switch dashes, name := f[1], f[2]; {
				case !defined[sub][name]:
					t.Errorf("%s: %q names -%s, which enforcer %s does not define", filepath.ToSlash(rel), m[0], name, sub)
				case dashes != "-":
					t.Errorf("%s: %q spells -%s as %s%s; the usage spells it with one dash", filepath.ToSlash(rel), m[0], name, dashes, name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if mentions == 0 {
		t.Fatal("no mention of a subcommand found: the walk or the pattern is broken")
	}
}
