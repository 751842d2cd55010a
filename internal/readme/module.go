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
// guides in docs/, each filled in by [GoFile] and in a file named for its
// Markdown file and line; together they are one package, so a block may
// use what another declares. Built in a workspace with the repository's
// modules, its compile errors and vet reports name lines of the Markdown
// files, and the blocks that declare tests run as tests. Its go line is
// the core module's, so a block holds to the Go the core promises.
func WriteModule(root, dir string) error {
	goVersion, err := goLine(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
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

// goLine returns the version on the go line of a go.mod file.
func goLine(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "go "); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("readme: %s has no go line", gomod)
}
