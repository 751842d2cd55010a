package readme

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/internal/gowork"
	"github.com/enforcer-go/enforcer/internal/proc"
)

// TestTheREADMEModuleHoldsEveryGoBlock: WriteModule writes one file a
// block, named for its Markdown file and line, a block declaring a test
// in a _test.go file, and a go.mod with the core's go line.
func TestTheREADMEModuleHoldsEveryGoBlock(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "go.mod"), "module example.com/core\n\ngo 1.24\n")
	write(t, filepath.Join(root, "README.md"), "# R\n\n```go\nvar a = 1\n```\n\n```sh\nls\n```\n")
	if err := os.Mkdir(filepath.Join(root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "docs", "b.md"), "```go\nvar b = a\n```\n")
	write(t, filepath.Join(root, "docs", "a-guide.md"), "x\n\n```go\nfunc TestA(t *testing.T) {}\n```\n")
	dir := t.TempDir()
	if err := WriteModule(root, dir); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	want := []string{"docs_a_guide_md_line0004_test.go", "docs_b_md_line0002.go", "go.mod", "readme_md_line0004.go"}
	if !slices.Equal(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(mod), "module readmecheck\n\ngo 1.24\n"; got != want {
		t.Errorf("go.mod = %q, want %q", got, want)
	}
}

// TestTheRepositorysGoBlocksAreWellFormed: every ```go block of the
// README and the guides is one GoFile can fill in. Whether they compile,
// vet clean and pass is the test command's to say (internal/testall
// builds the module with every other).
func TestTheRepositorysGoBlocksAreWellFormed(t *testing.T) {
	if err := WriteModule(filepath.Join("..", ".."), t.TempDir()); err != nil {
		t.Fatal(err)
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
	// With the flags this test was built with (-race under the test
	// command), go vet finds fmt and context already compiled.
	vet := proc.ForTest(t, goCmd, append(append([]string{"vet"}, buildFlags...), ".")...)
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

// buildFlags are the go command's flags this test binary was built with
// that change what a child go command compiles: ["-race"] under the race
// detector.
var buildFlags []string

// goTool returns the go command, skipping the test under -short or when
// there is none.
func goTool(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the go command; skipped with -short")
	}
	goCmd, err := gowork.GoTool()
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	return goCmd
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
