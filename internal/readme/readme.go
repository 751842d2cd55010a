// Package readme holds the repository's README.md and guides to what the
// code does. [WriteModule] turns every ```go block into a module (see
// [GoFile] for what it fills in) that the test command (internal/testall)
// compiles, vets and tests with every other module, and [Parse] lets
// other tests find a block; [Shows] holds an example's output to the
// block the README or a guide shows.
package readme

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Block is one fenced code block of a Markdown file.
type Block struct {
	Info string // the opening fence's info string: "go", "sh", or ""
	Line int    // the file's 1-based line number of the block's first line
	Text string // the lines between the fences, each ending in "\n"
	Lead string // the last non-blank line before the opening fence
}

// Parse returns the fenced code blocks of a Markdown file in order. Only
// fences of three or more backticks at the start of a line count, as the
// README uses; an unclosed block runs to the end of the file.
func Parse(md []byte) []Block {
	var (
		blocks []Block
		cur    *Block
		fence  string
		lead   string
	)
	lines := strings.SplitAfter(string(md), "\n")
	for i, line := range lines {
		trimmed := strings.TrimRight(line, "\r\n")
		if cur != nil {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, "`") == "" {
				blocks = append(blocks, *cur)
				cur = nil
				lead = ""
				continue
			}
			cur.Text += strings.TrimRight(line, "\r\n") + "\n"
			continue
		}
		if strings.HasPrefix(trimmed, "```") {
			n := len(trimmed) - len(strings.TrimLeft(trimmed, "`"))
			fence = trimmed[:n]
			cur = &Block{Info: strings.TrimSpace(trimmed[n:]), Line: i + 2, Lead: lead}
			continue
		}
		if strings.TrimSpace(trimmed) != "" {
			lead = strings.TrimSpace(trimmed)
		}
	}
	if cur != nil {
		blocks = append(blocks, *cur)
	}
	return blocks
}

// ReadFile parses the Markdown file at path.
func ReadFile(path string) ([]Block, error) {
	md, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(md), nil
}

// Find returns the one block whose lead line is lead, so a test can
// name the block by the sentence that introduces it.
func Find(blocks []Block, lead string) (Block, error) {
	var found []Block
	for _, b := range blocks {
		if b.Lead == lead {
			found = append(found, b)
		}
	}
	if len(found) != 1 {
		return Block{}, fmt.Errorf("readme: %d blocks follow the line %q, want exactly 1", len(found), lead)
	}
	return found[0], nil
}

// Shows reports whether out is the block the Markdown file at path shows
// after the line lead: nil when it is, else an error naming the file's
// line of each line that differs, so that a program's test holds the
// guide's shown output to what the program prints.
func Shows(path, lead, out string) error {
	blocks, err := ReadFile(path)
	if err != nil {
		return err
	}
	shown, err := Find(blocks, lead)
	if err != nil {
		return err
	}
	got, want := strings.Split(out, "\n"), strings.Split(shown.Text, "\n")
	var diffs []string
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			diffs = append(diffs, fmt.Sprintf("%s line %d:\n got: %q\nwant: %q", path, shown.Line+i, g, w))
		}
	}
	if diffs != nil {
		return errors.New(strings.Join(diffs, "\n"))
	}
	return nil
}
