package harness

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// retiredEraName is the era's old name in the code. The 2026-07-28 generation has one name,
// EraStateless; IDs and report strings that say "modern" (HTTP26-MODERN-ERROR-BODY) are no
// identifiers and stay.
var retiredEraName = regexp.MustCompile(`(?i)modern`)

// retiredIdents lists the identifiers of a Go source that use the era's old name, as
// "line: name".
func retiredIdents(fset *token.FileSet, name string, src any) ([]string, error) {
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && retiredEraName.MatchString(id.Name) {
			found = append(found, fset.Position(id.Pos()).String()+": "+id.Name)
		}
		return true
	})
	return found, nil
}

// moduleRoot is the directory holding go.mod, above the test's working directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

func TestRetiredIdentsFound(t *testing.T) {
	src := `package p

// modern in a comment is no identifier.
const s = "HTTP26-MODERN-ERROR-BODY"

type modernEnvelope struct{ IsModern bool }

func f(e modernEnvelope) bool { stateless := e.IsModern; return stateless }
`
	got, err := retiredIdents(token.NewFileSet(), "p.go", src)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"p.go:6:6: modernEnvelope", "p.go:6:29: IsModern", "p.go:8:10: modernEnvelope", "p.go:8:48: IsModern"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("retiredIdents found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestEraHasOneName keeps the 2026-07-28 era's one name in the code: no Go identifier or Go file
// name in the module (tests included) says "modern" again.
func TestEraHasOneName(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		files++
		rel, _ := filepath.Rel(root, path)
		if retiredEraName.MatchString(d.Name()) {
			t.Errorf("%s: the file is named by the era's old name; name it stateless", rel)
		}
		found, err := retiredIdents(fset, path, nil)
		if err != nil {
			return err
		}
		for _, f := range found {
			t.Errorf("%s: the identifier names the 2026-07-28 era \"modern\"; its one name is stateless", strings.TrimPrefix(f, root+string(filepath.Separator)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("walked %d Go files under %s; the module has hundreds", files, root)
	}
}
