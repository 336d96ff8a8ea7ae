package suites

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/suites/assuite"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"github.com/mcpspec/mcpspec/suites/check"
	"github.com/mcpspec/mcpspec/suites/clientsuite"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// The layout of docs/architecture.md: a check lives in the file of its area's page (the
// catalogue's areas table), a file of helpers registers no check, and a fault's constant lives
// in fixtures/reference/faults_<page>.go beside the same page's faults, its test entry in
// faults_<page>_test.go. The client side is laid out alike: a client check in
// suites/clientsuite/<page>.go, a reference-client fault in fixtures/refclient/faults_<page>.go;
// so is an authorization-server check, in suites/assuite/<page>.go.

const (
	referenceDir   = "../fixtures/reference"
	refclientDir   = "../fixtures/refclient"
	clientsuiteDir = "clientsuite"
	assuiteDir     = "assuite"
)

func TestChecksLiveOnTheirPage(t *testing.T) {
	checks, err := conform.Checks()
	if err != nil {
		t.Fatal(err)
	}
	checksLiveOnTheirPage(t, checks, ".")
}

func TestClientChecksLiveOnTheirPage(t *testing.T) {
	checks, err := clientsuite.Checks()
	if err != nil {
		t.Fatal(err)
	}
	checksLiveOnTheirPage(t, checks, clientsuiteDir)
}

func TestAuthServerChecksLiveOnTheirPage(t *testing.T) {
	checks, err := assuite.Checks()
	if err != nil {
		t.Fatal(err)
	}
	checksLiveOnTheirPage(t, checks, assuiteDir)
}

// checksLiveOnTheirPage holds each check of one kind registered in dir to the file of its area's
// page (or a section file of it); checks registered elsewhere are judged by their own package's
// layout.
func checksLiveOnTheirPage[S check.Side](t *testing.T, checks []*check.Check[S], dir string) {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, c := range checks {
		if filepath.Dir(c.File) != abs {
			continue
		}
		seen++
		area, ok := catalog.AreaOf(c.Area())
		if !ok {
			t.Errorf("%s check %s: area %q is not in the areas table", c.Kind(), c.ID, c.Area())
			continue
		}
		if file := filepath.Base(c.File); !area.Holds(file) {
			t.Errorf("%s check %s (area %s, page %s) is registered in %s, not in %s.go or a section file of it",
				c.Kind(), c.ID, area.Code, area.Page, filepath.Join(dir, file), filepath.Join(dir, area.File))
		}
	}
	if seen == 0 {
		t.Fatalf("no check registered in %s: has the package moved?", abs)
	}
}

// TestFaultsLiveOnTheirPage: the reference server's faults and the reference client's.
func TestFaultsLiveOnTheirPage(t *testing.T) {
	for _, dir := range []string{referenceDir, refclientDir} {
		t.Run(filepath.Base(dir), func(t *testing.T) { faultsLiveOnTheirPage(t, dir) })
	}
}

func faultsLiveOnTheirPage(t *testing.T, dir string) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no reference sources in %s: %v", dir, err)
	}
	fset := token.NewFileSet()
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(f)
		for _, d := range af.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				if len(vs.Names) != 1 || !strings.HasPrefix(vs.Names[0].Name, "Fault") || len(vs.Values) != 1 {
					continue
				}
				lit, ok := vs.Values[0].(*ast.BasicLit)
				if !ok {
					continue
				}
				id, _ := strconv.Unquote(lit.Value)
				req, _, _ := strings.Cut(id, ":")
				e, ok := catalog.Lookup(req)
				if !ok {
					t.Errorf("%s: fault %s breaks no catalogued requirement", base, id)
					continue
				}
				seen++
				area, _ := catalog.AreaOf(e.Area)
				if want := "faults_" + area.File + ".go"; base != want {
					t.Errorf("fault %s (area %s) is declared in %s, not in %s", id, e.Area, base, want)
				}
			}
		}
	}
	if seen == 0 {
		t.Fatal("no fault constants found: has the reference moved?")
	}
}

// TestFaultTestsLiveOnTheirPage: each fault's test entry (faultChecks[Fault...] = check) lives in
// faults_<page>_test.go beside its constant's faults_<page>.go, and so does a check function
// the entry names; a faults_*_test.go file is a page's or the table's own faults_test.go.
func TestFaultTestsLiveOnTheirPage(t *testing.T) {
	fset := token.NewFileSet()
	constFile := map[string]string{} // fault constant name → file declaring it
	funcFile := map[string]string{}  // test function name → file declaring it
	tests := map[string]*ast.File{}
	files, err := filepath.Glob(filepath.Join(referenceDir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no reference sources in %s: %v", referenceDir, err)
	}
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(f)
		if strings.HasSuffix(base, "_test.go") {
			tests[base] = af
		}
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && strings.HasSuffix(base, "_test.go") {
					funcFile[d.Name.Name] = base
				}
			case *ast.GenDecl:
				if d.Tok != token.CONST || strings.HasSuffix(base, "_test.go") {
					continue
				}
				for _, s := range d.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						if strings.HasPrefix(n.Name, "Fault") {
							constFile[n.Name] = base
						}
					}
				}
			}
		}
	}
	seen := 0
	for base, af := range tests {
		if strings.HasPrefix(base, "faults_") && base != "faults_test.go" {
			if _, err := os.Stat(filepath.Join(referenceDir, strings.TrimSuffix(base, "_test.go")+".go")); err != nil {
				t.Errorf("%s is named for a page but %s has no fault table", base, strings.TrimSuffix(base, "_test.go")+".go")
			}
		}
		ast.Inspect(af, func(n ast.Node) bool {
			var key, value ast.Expr
			switch n := n.(type) {
			case *ast.AssignStmt:
				ix, ok := n.Lhs[0].(*ast.IndexExpr)
				if !ok || !isIdent(ix.X, "faultChecks") {
					return true
				}
				key, value = ix.Index, n.Rhs[0]
			case *ast.ValueSpec: // entries written into the table's declaration
				if len(n.Names) != 1 || n.Names[0].Name != "faultChecks" || len(n.Values) != 1 {
					return true
				}
				if lit, ok := n.Values[0].(*ast.CompositeLit); ok && len(lit.Elts) > 0 {
					t.Errorf("%s: faultChecks is declared with entries; register each in its page's faults_<page>_test.go", base)
				}
				return true
			default:
				return true
			}
			id, ok := key.(*ast.Ident)
			if !ok || constFile[id.Name] == "" {
				t.Errorf("%s: %s: a fault test entry is keyed by something other than a fault constant", base, fset.Position(key.Pos()))
				return true
			}
			seen++
			want := strings.TrimSuffix(constFile[id.Name], ".go") + "_test.go"
			if base != want {
				t.Errorf("the test entry of %s (declared in %s) is in %s, not in %s", id.Name, constFile[id.Name], base, want)
			}
			if fn, ok := value.(*ast.Ident); ok && funcFile[fn.Name] != "" && funcFile[fn.Name] != want {
				t.Errorf("%s, the check of %s, is in %s, not in %s", fn.Name, id.Name, funcFile[fn.Name], want)
			}
			return true
		})
	}
	if seen == 0 {
		t.Fatal("no fault test entries found: has the reference moved?")
	}
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// historyName matches file names that record when code was written rather than what it is about.
var historyName = regexp.MustCompile(`modern|_more|more\.go|_last|_rest|_misc`)

func TestNoFileNamedByItsHistory(t *testing.T) {
	for _, dir := range []string{".", referenceDir, clientsuiteDir, refclientDir} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if historyName.MatchString(e.Name()) {
				t.Errorf("%s/%s is named by its history, not its topic", dir, e.Name())
			}
		}
	}
}
