package readme

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// Imports maps each package name a ```go block may use without importing
// it to the package's import path: READMEs leave imports out. A block may
// import anything itself; a name not listed here and not imported fails
// to compile.
var Imports = map[string]string{
	"context":    "context",
	"errors":     "errors",
	"fmt":        "fmt",
	"http":       "net/http",
	"json":       "encoding/json",
	"log":        "log",
	"os":         "os",
	"slices":     "slices",
	"strings":    "strings",
	"testing":    "testing",
	"time":       "time",
	"agent":      "github.com/enforcer-go/enforcer/agent",
	"agenttest":  "github.com/enforcer-go/enforcer/agent/agenttest",
	"enforce":    "github.com/enforcer-go/enforcer/enforce",
	"events":     "github.com/enforcer-go/enforcer/events",
	"fnv":        "github.com/enforcer-go/enforcer/fnv",
	"middleware": "github.com/enforcer-go/enforcer/middleware",
}

// GoFile turns a ```go block into a Go source file of package readme whose
// //line directives make every position the compiler reports a line of
// the Markdown file named file. It fills in exactly this:
//
//   - the package clause;
//   - an import for each name of [Imports] the block uses but does not
//     import;
//   - for a block of statements (its first token after any imports is not
//     func, type, var or const): a func _() { … } around the statements.
//
// Nothing else: a function declared without a body fails to compile, as
// it would for a reader who pasted it. Blocks are meant to be compiled together as one package, in README
// order, so a block may use what an earlier block declares (a type, a
// function) as a reader would.
func GoFile(b Block, file string) ([]byte, error) {
	split, stmts, err := shape(b.Text)
	if err != nil {
		return nil, fmt.Errorf("%s:%d: %v", file, b.Line, err)
	}
	var src bytes.Buffer
	src.WriteString("package readme\n\n")
	header := src.Len()
	fmt.Fprintf(&src, "//line %s:%d:1\n", file, b.Line)
	if stmts {
		before := b.Text[:split]
		src.WriteString(before)
		fmt.Fprintf(&src, "\nfunc _() {\n//line %s:%d:1\n", file, b.Line+strings.Count(before, "\n"))
		src.WriteString(b.Text[split:])
		src.WriteString("}\n")
	} else {
		src.WriteString(b.Text)
	}

	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src.Bytes(), parser.ParseComments)
	if err != nil {
		return nil, err // positions already name file's lines
	}
	out := src.Bytes()
	if imps := missingImports(f); len(imps) > 0 {
		var decl bytes.Buffer
		decl.WriteString("import (\n")
		for _, p := range imps {
			fmt.Fprintf(&decl, "\t%q\n", p)
		}
		decl.WriteString(")\n\n")
		out = slices.Insert(out, header, decl.Bytes()...)
	}
	return out, nil
}

// shape finds where a block's leading import declarations end and
// whether what follows is statements rather than declarations.
func shape(text string) (split int, stmts bool, err error) {
	fset := token.NewFileSet()
	tf := fset.AddFile("", fset.Base(), len(text))
	var s scanner.Scanner
	s.Init(tf, []byte(text), nil, 0) // the parser reports errors, at README lines
	for {
		_, tok, lit := s.Scan()
		switch tok {
		case token.SEMICOLON:
			if lit == "\n" {
				continue // inserted after an import's closing token
			}
			return split, true, nil
		case token.IMPORT:
			end, err := skipImport(&s, tf)
			if err != nil {
				return 0, false, err
			}
			split = end
		case token.FUNC, token.TYPE, token.VAR, token.CONST, token.EOF:
			return split, false, nil
		default:
			return split, true, nil
		}
	}
}

// skipImport scans one import declaration after its keyword and returns
// the offset just past it.
func skipImport(s *scanner.Scanner, tf *token.File) (int, error) {
	pos, tok, lit := s.Scan()
	if tok == token.LPAREN {
		for {
			pos, tok, _ = s.Scan()
			switch tok {
			case token.RPAREN:
				return tf.Offset(pos) + 1, nil
			case token.EOF:
				return 0, fmt.Errorf("unclosed import declaration")
			}
		}
	}
	if tok == token.IDENT || tok == token.PERIOD {
		pos, tok, lit = s.Scan()
	}
	if tok != token.STRING {
		return 0, fmt.Errorf("malformed import declaration")
	}
	return tf.Offset(pos) + len(lit), nil
}

// missingImports returns the import paths of the names of Imports the
// file uses as a package qualifier without importing them, sorted.
func missingImports(f *ast.File) []string {
	imported := map[string]bool{}
	for _, spec := range f.Imports {
		p, _ := strconv.Unquote(spec.Path.Value)
		imported[p] = true
		if spec.Name != nil {
			imported["name:"+spec.Name.Name] = true
		}
	}
	var paths []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		// A name the parser resolved in the file is a variable or a
		// parameter, not a package.
		if !ok || id.Obj != nil {
			return true
		}
		p, known := Imports[id.Name]
		if known && !imported[p] && !imported["name:"+id.Name] {
			imported[p] = true
			paths = append(paths, p)
		}
		return true
	})
	slices.Sort(paths)
	return paths
}
