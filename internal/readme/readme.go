// Package readme holds the repository's README.md and guides to what the
// code does. [WriteModule] turns every ```go block into a module (see
// [GoFile] for what it fills in) that the test command (internal/testall)
// compiles, vets and tests with every other module, and [Parse] lets
// other tests find a block — examples/quickstart compares its output with
// the block the README shows.
package readme

import (
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
