// Package layout holds the tests that keep the project's shape: which
// packages may import which, where SQL may live, and how long a file may
// grow. They read the source tree, so they run wherever `go test` does.
package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/frameworks"
)

const module = "github.com/cudb/cudb"

// root is the repository root, two levels up from this package.
func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// goFiles lists the repository's Go files (relative, slash-separated),
// test files included when tests is true.
func goFiles(t *testing.T, tests bool) []string {
	t.Helper()
	var out []string
	r := root(t)
	err := filepath.WalkDir(r, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != r {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || (!tests && strings.HasSuffix(p, "_test.go")) {
			return nil
		}
		rel, _ := filepath.Rel(r, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// packageImports maps each non-test package of the module to its
// imports of the module, from `go list`.
func packageImports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
	cmd.Dir = root(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(f[0], module), "/")
		m[pkg] = []string{}
		for _, imp := range f[1:] {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				m[pkg] = append(m[pkg], strings.TrimPrefix(strings.TrimPrefix(imp, module), "/"))
			}
		}
	}
	return m
}

func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// TestImportRules: leaves (internal/) import only other leaves; db imports
// only leaves and its migrations; query never imports cmd, the probe or
// scraper; nothing outside cmd imports cmd.
func TestImportRules(t *testing.T) {
	for pkg, imps := range packageImports(t) {
		for _, imp := range imps {
			var why string
			switch {
			case under(pkg, "internal") && !under(imp, "internal"):
				why = "a leaf imports only other leaves"
			case under(pkg, "db") && !under(imp, "internal") && imp != "migrations":
				why = "db imports only leaves (and migrations)"
			case under(pkg, "query") && (under(imp, "cmd") || under(imp, "scraper")):
				why = "query never imports cmd, the probe or scraper"
			case !under(pkg, "cmd") && under(imp, "cmd"):
				why = "nothing imports cmd"
			}
			if why != "" {
				t.Errorf("%s imports %s: %s", pkg, imp, why)
			}
		}
	}
}

// TestOpeningDataNeedsNoScraper: opening a database (db.OpenFileCached
// behind --db FILE, db.OpenImage for the embedded one) reaches nothing of
// scraper, even through another package: it asks internal/datadir, a
// leaf, whether a refresh commit is pending, and recovering one is the
// business of the commands that write.
func TestOpeningDataNeedsNoScraper(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "./db")
	cmd.Dir = root(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./db: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if rel := strings.TrimPrefix(dep, module+"/"); rel != dep && (under(rel, "scraper") || under(rel, "query") || under(rel, "cmd")) {
			t.Errorf("db depends on %s: opening data needs no scraper, query or command", dep)
		}
	}
}

// frontDoors are the packages a person or a program talks to: the CLI,
// the HTTP API, the MCP server and the site generator.
var frontDoors = []string{"cmd/cudb/internal/cli", "cmd/cudb/internal/httpapi", "cmd/cudb/internal/mcptools", "cmd/cudb/internal/site"}

// TestFrontDoorsCallUseCases: the front doors import the use cases
// (usecase, and usecase/store for the data's own), their presenters
// (usecase/present) and internal leaves (the probe among them), and
// nothing else of cudb: no door reaches query, pin, verify, check, db or
// scraper itself, nor another door, so every door answers through the
// same function. Only package app, the composition root, puts the doors
// together (so mcptools, like every door, never imports the CLI).
func TestFrontDoorsCallUseCases(t *testing.T) {
	imports := packageImports(t)
	for _, door := range frontDoors {
		imps, ok := imports[door]
		if !ok {
			t.Fatalf("no package %s", door)
		}
		for _, imp := range imps {
			if !under(imp, "usecase") && !under(imp, "internal") {
				t.Errorf("%s imports %s: a front door calls the use cases (usecase), their presenters and internal leaves only", door, imp)
			}
		}
	}
}

// TestDoorsReachNoOtherDoor: no door depends on another, even through a
// third package (`go list -deps`): mcptools, the HTTP API and the site
// never link the CLI, and the CLI links none of them.
func TestDoorsReachNoOtherDoor(t *testing.T) {
	for _, door := range frontDoors {
		cmd := exec.Command("go", "list", "-deps", "./"+door)
		cmd.Dir = root(t)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", door, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			rel := strings.TrimPrefix(dep, module+"/")
			if rel != door && slices.Contains(frontDoors, rel) {
				t.Errorf("%s depends on the door %s: only package app puts doors together", door, rel)
			}
		}
	}
}

// siblings are the query packages that judge one kind of input each over
// the shared findings model; none imports another.
var siblings = map[string]bool{"query/check": true, "query/verify": true, "query/pin": true}

// TestUseCaseLayers: the use cases sit on the query packages and leaves
// (never on a door); only usecase/store, the data's own use cases (open,
// build, refresh), reaches scraper and the embedded data, and no other
// use case imports it. query/nvidia sits below query (it never imports
// query or its other children); check, verify and pin are siblings over
// query/findings, which sits below them.
func TestUseCaseLayers(t *testing.T) {
	for pkg, imps := range packageImports(t) {
		for _, imp := range imps {
			var why string
			switch {
			case under(pkg, "usecase") && under(imp, "cmd"):
				why = "the use cases never import a door"
			case under(pkg, "usecase") && pkg != "usecase/store" && (under(imp, "scraper") || imp == "data" || imp == "usecase/store"):
				why = "only usecase/store (the data's own use cases) reaches scraper and the embedded data"
			case pkg == "query/nvidia" && under(imp, "query"):
				why = "query/nvidia is below query and its siblings"
			case pkg == "query/verify" && under(imp, "query/pin"):
				why = "verify and pin are siblings: the use cases hand verify pin's system cuDNN line (verify.Options.SystemCUDNN)"
			case siblings[pkg] && siblings[imp] && imp != pkg:
				why = "check, verify and pin are siblings over query/findings: the use cases put them together (check.Options.JudgeHost is verify's judgement)"
			case pkg == "query/findings" && (siblings[imp] || under(imp, "usecase")):
				why = "the findings model sits below check, verify and pin"
			}
			if why != "" {
				t.Errorf("%s imports %s: %s", pkg, imp, why)
			}
		}
	}
}

// sqlText matches the statements cudb runs; a string literal holding one
// is SQL.
var sqlText = regexp.MustCompile(`\b(SELECT\s+.+\s+FROM|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX|VIEW)|PRAGMA\s+\w+)\b`)

// TestSQLOnlyInDB: outside db/ (and the migrations' .sql files) no
// non-test file imports database/sql or holds SQL text.
func TestSQLOnlyInDB(t *testing.T) {
	for _, rel := range goFiles(t, false) {
		if strings.HasPrefix(rel, "db/") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root(t), rel), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "database/sql" || p == "modernc.org/sqlite" {
				t.Errorf("%s imports %s: SQL lives in db", rel, p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && sqlText.MatchString(s) {
					t.Errorf("%s holds SQL text %q: add a typed read to db instead", rel, short(s))
				}
			}
			return true
		})
	}
}

func short(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// TestFileLength: past about 600 lines a file usually holds two ideas.
func TestFileLength(t *testing.T) {
	for _, rel := range goFiles(t, false) {
		b, err := os.ReadFile(filepath.Join(root(t), rel))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n > 600 {
			t.Errorf("%s has %d lines (at most 600): split it by idea", rel, n)
		}
	}
}

// TestPackageDocs: every package says what it owns.
func TestPackageDocs(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{if .Doc}}doc{{end}}`, "./...")
	cmd.Dir = root(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(line); len(f) == 1 {
			t.Errorf("%s has no package doc", f[0])
		}
	}
}

// TestFrameworkNamesInOneTable: a framework's names are written once, in
// internal/frameworks; everything else (scrapers and tests aside, which
// read upstream text) refers to the table.
func TestFrameworkNamesInOneTable(t *testing.T) {
	names := map[string]bool{}
	for _, n := range frameworks.Names() {
		names[n] = true
	}
	for _, rel := range goFiles(t, false) {
		if strings.HasPrefix(rel, "internal/frameworks/") || strings.HasPrefix(rel, "scraper/") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root(t), rel), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && names[strings.ToLower(s)] {
					t.Errorf("%s writes the framework name %q: read it from internal/frameworks", rel, s)
				}
			}
			return true
		})
	}
}

// TestReadmePackageMap: README's package map names every package of the
// tree (a `<name>` row stands for one level, a `...` row for a subtree),
// and names no path that is gone.
func TestReadmePackageMap(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	cell := regexp.MustCompile("`([a-z][a-z0-9_/<>.]*)`")
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.SplitN(line, "|", 3)[1]
		for _, m := range cell.FindAllStringSubmatch(first, -1) {
			rows = append(rows, m[1])
		}
	}
	matches := func(row, pkg string) bool {
		switch {
		case strings.HasSuffix(row, "/..."):
			return strings.HasPrefix(pkg, strings.TrimSuffix(row, "...")) && !strings.Contains(strings.TrimPrefix(pkg, strings.TrimSuffix(row, "...")), "testdata")
		case strings.Contains(row, "<"):
			pre := row[:strings.Index(row, "<")]
			rest := strings.TrimPrefix(pkg, pre)
			return strings.HasPrefix(pkg, pre) && rest != "" && !strings.Contains(rest, "/")
		}
		return row == pkg
	}
	pkgs := packageImports(t)
	for pkg := range pkgs {
		if pkg == "" {
			continue
		}
		found := false
		for _, r := range rows {
			found = found || matches(r, pkg)
		}
		if !found {
			t.Errorf("README's package map does not name %s", pkg)
		}
	}
	for _, r := range rows {
		if strings.ContainsAny(r, "<.") || r == "docs" {
			continue
		}
		if _, ok := pkgs[r]; !ok {
			t.Errorf("README's package map names %s, which is not a package", r)
		}
	}
}

// TestNoInit: lists are explicit (the source list, the command list), so
// no package of the binary does work or registers itself in init.
func TestNoInit(t *testing.T) {
	for _, rel := range goFiles(t, false) {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root(t), rel), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
				t.Errorf("%s has an init function: make the list it feeds explicit", rel)
			}
		}
	}
}

// TestNoStartupRegexps: every command starts in a few milliseconds, so no
// package compiles a regular expression while the binary starts; patterns
// compile on first use (sync.OnceValue).
func TestNoStartupRegexps(t *testing.T) {
	for _, rel := range goFiles(t, false) {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root(t), rel), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			ast.Inspect(g, func(n ast.Node) bool {
				if _, ok := n.(*ast.FuncLit); ok {
					return false
				}
				if call, ok := n.(*ast.CallExpr); ok {
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "MustCompile" {
						if id, ok := sel.X.(*ast.Ident); ok && id.Name == "regexp" {
							t.Errorf("%s compiles a regular expression at start-up: wrap it in sync.OnceValue", rel)
						}
					}
				}
				return true
			})
		}
	}
}
