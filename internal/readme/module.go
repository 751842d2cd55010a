package readme

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ModulePath is the module path of the module [WriteModule] writes.
const ModulePath = "readmecheck"

// WriteModule writes into the folder dir a module of one package, readme,
// made of every ```go block of the repository's README.md and of its
// guides in docs/, in that order (README first, then the guides by name;
// so a block may use what an earlier one declares), each filled in by
// [GoFile]. Built in a workspace with the repository's modules, its
// compile errors and vet reports name lines of the Markdown files, and
// the blocks that declare tests run as tests. goVersion is its go line.
func WriteModule(root, dir, goVersion string) error {
	guides, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return err
	}
	slices.Sort(guides)
	var errs []string
	for _, path := range append([]string{filepath.Join(root, "README.md")}, guides...) {
		name, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		name = filepath.ToSlash(name)
		blocks, err := ReadFile(path)
		if err != nil {
			return err
		}
		n := 0
		for _, b := range blocks {
			if b.Info != "go" {
				continue
			}
			n++
			src, err := GoFile(b, name)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s block at line %d: %v", name, b.Line, err))
				continue
			}
			if err := os.WriteFile(filepath.Join(dir, blockFile(name, b)), src, 0o644); err != nil {
				return err
			}
		}
		if n == 0 && name == "README.md" {
			return fmt.Errorf("readme: README.md has no ```go blocks: the parser or the README is broken")
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("readme: %s", strings.Join(errs, "\n"))
	}
	return os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+ModulePath+"\n\ngo "+goVersion+"\n"), 0o644)
}

// blockFile names a block's file by its Markdown file and line; a block
// declaring a test goes in a _test.go file so that vet checks it as one.
func blockFile(md string, b Block) string {
	base := strings.NewReplacer("/", "_", ".", "_", "-", "_").Replace(strings.ToLower(md))
	name := fmt.Sprintf("%s_line%04d", base, b.Line)
	if strings.Contains(b.Text, "func Test") {
		return name + "_test.go"
	}
	return name + ".go"
}
