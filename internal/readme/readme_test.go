package readme

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/internal/gowork"
)

// TestREADMEGoBlocksCompile compiles and vets every ```go block of the
// repository's README.md and of its guides in docs/, as one package in
// that order (README first, then the guides by name; so a block may use
// what an earlier one declares), in a scratch module that joins the
// repository's workspace. Only what GoFile documents is filled in; a
// block that no longer compiles fails here with its file and line.
func TestREADMEGoBlocksCompile(t *testing.T) {
	goCmd := goTool(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	guides, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(guides)
	dir := t.TempDir()
	work := workspace(t, goCmd, root, dir)
	for _, path := range append([]string{filepath.Join(root, "README.md")}, guides...) {
		name, _ := filepath.Rel(root, path)
		name = filepath.ToSlash(name)
		blocks, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, b := range blocks {
			if b.Info != "go" {
				continue
			}
			n++
			src, err := GoFile(b, name)
			if err != nil {
				t.Errorf("%s block at line %d: %v", name, b.Line, err)
				continue
			}
			write(t, filepath.Join(dir, blockFile(name, b)), string(src))
		}
		if n == 0 && name == "README.md" {
			t.Fatal("README.md has no ```go blocks: the parser or the README is broken")
		}
	}
	if t.Failed() {
		return
	}
	write(t, filepath.Join(dir, "go.mod"), "module readmecheck\n\ngo "+goLine(t, filepath.Join(root, "go.mod"))+"\n")
	write(t, filepath.Join(dir, "go.work"), work)

	// go test compiles every block, tests included, and lists each
	// compile error; then it runs the README's tests. go vet runs all its
	// checks, not go test's subset.
	for _, args := range [][]string{{"test", "-count=1", "-vet=off", "."}, {"vet", "."}} {
		cmd := exec.CommandContext(t.Context(), goCmd, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(dir, "go.work"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: the Go blocks fail (%v); positions are lines of the Markdown files:\n%s", args[0], err, out)
		}
	}
}

// TestABrokenBlockFailsAtItsREADMELine holds the check itself to account:
// a block with an unused variable must fail, and the failure must name
// the README line of the offending statement.
func TestABrokenBlockFailsAtItsREADMELine(t *testing.T) {
	goCmd := goTool(t)
	md := "# Title\n\nSome text:\n\n```go\nctx := context.Background()\nres, err := fmt.Println(ctx)\n_ = err\n```\n"
	blocks := Parse([]byte(md))
	if len(blocks) != 1 || blocks[0].Line != 6 {
		t.Fatalf("Parse = %+v, want one block at line 6", blocks)
	}
	src, err := GoFile(blocks[0], "README.md")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "block.go"), string(src))
	write(t, filepath.Join(dir, "go.mod"), "module readmecheck\n\ngo 1.24\n")
	vet := exec.CommandContext(t.Context(), goCmd, "vet", ".")
	vet.Dir = dir
	vet.Env = append(os.Environ(), "GOWORK=off")
	out, err := vet.CombinedOutput()
	if err == nil {
		t.Fatalf("go vet passed a block that leaves res unused:\n%s", src)
	}
	if want := "README.md:7:1: declared and not used: res"; !strings.Contains(string(out), want) {
		t.Errorf("go vet said:\n%s\nwant it to contain %q", out, want)
	}
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

// workspace returns a go.work that uses the scratch module dir and every
// module of the repository's go.work, so blocks import the repository's
// packages (and the adapters' SDKs) exactly as they stand.
func workspace(t *testing.T, goCmd, root, dir string) string {
	t.Helper()
	work := gowork.Read(t, goCmd, root)
	var b strings.Builder
	fmt.Fprintf(&b, "go %s\n\nuse (\n\t%q\n", work.Go, dir)
	for _, u := range work.Use {
		fmt.Fprintf(&b, "\t%q\n", filepath.Join(work.Root, u))
	}
	b.WriteString(")\n")
	return b.String()
}

// goLine returns the version on the go line of a go.mod file.
func goLine(t *testing.T, gomod string) string {
	t.Helper()
	data, err := os.ReadFile(gomod)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "go "); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("%s has no go line", gomod)
	return ""
}

// goTool returns the go command, skipping the test under -short or when
// there is none.
func goTool(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("compiles the README's Go blocks with the go command; skipped with -short")
	}
	return gowork.GoTool(t)
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGoFileFillsInOnlyImports: a function declared without a body keeps
// none, whatever its comment says (so it fails to compile, as it would
// for a reader who pasted it), and only the used names of Imports are
// imported.
func TestGoFileFillsInOnlyImports(t *testing.T) {
	md := "```go\n" +
		"func mine(ctx context.Context) error // yours: your code\n" +
		"func forgotten() error // a body left out by mistake\n" +
		"func uses() { _ = errors.New(\"x\") }\n" +
		"```\n"
	src, err := GoFile(Parse([]byte(md))[0], "README.md")
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", src, 0)
	if err != nil {
		t.Fatalf("GoFile's output does not parse: %v\n%s", err, src)
	}
	bodies := map[string]bool{}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok {
			bodies[fn.Name.Name] = fn.Body != nil
		}
	}
	if want := map[string]bool{"mine": false, "forgotten": false, "uses": true}; !maps.Equal(bodies, want) {
		t.Errorf("functions with a body = %v, want %v\n%s", bodies, want, src)
	}
	var imports []string
	for _, spec := range f.Imports {
		imports = append(imports, spec.Path.Value)
	}
	if want := []string{`"context"`, `"errors"`}; !slices.Equal(imports, want) {
		t.Errorf("imports = %v, want %v\n%s", imports, want, src)
	}
}

func TestParseFindsFencesTheirInfoLinesAndLeads(t *testing.T) {
	md := "Intro\n\nThe program prints:\n\n```\nhello\n\n  world\n```\n\n````go\nx := \"```\"\n````\n"
	got := Parse([]byte(md))
	want := []Block{
		{Info: "", Line: 6, Text: "hello\n\n  world\n", Lead: "The program prints:"},
		{Info: "go", Line: 12, Text: "x := \"```\"\n", Lead: ""},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Parse =\n%+v\nwant\n%+v", got, want)
	}
	if _, err := Find(got, "The program prints:"); err != nil {
		t.Errorf("Find: %v", err)
	}
	if _, err := Find(got, "Nothing says this:"); err == nil {
		t.Error("Find of a lead no block has returned no error")
	}
}
