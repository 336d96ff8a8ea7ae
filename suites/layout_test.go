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

	"github.com/mcpspec/mcpspec/suites/catalog"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// The layout of docs/architecture.md: a check lives in the file of its area's page (the
// catalogue's areas table), a file of helpers registers no check, and a fault's constant lives
// in fixtures/reference/faults_<page>.go beside the same page's faults.

const referenceDir = "../fixtures/reference"

func TestChecksLiveOnTheirPage(t *testing.T) {
	checks, err := conform.Checks()
	if err != nil {
		t.Fatal(err)
	}
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if filepath.Dir(c.File) != here {
			continue // registered by another package, judged by its own layout
		}
		area, ok := catalog.AreaOf(c.Area())
		if !ok {
			t.Errorf("%s: area %q is not in the areas table", c.ID, c.Area())
			continue
		}
		if file := filepath.Base(c.File); !area.Holds(file) {
			t.Errorf("%s (area %s, page %s) is registered in %s, not in %s.go or a section file of it", c.ID, area.Code, area.Page, file, area.File)
		}
	}
}

func TestFaultsLiveOnTheirPage(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(referenceDir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no reference sources in %s: %v", referenceDir, err)
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

// historyName matches file names that record when code was written rather than what it is about.
var historyName = regexp.MustCompile(`modern|_more|more\.go|_last|_rest|_misc`)

func TestNoFileNamedByItsHistory(t *testing.T) {
	for _, dir := range []string{".", referenceDir} {
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
