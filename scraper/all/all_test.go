package all_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/all"
	"github.com/cudb/cudb/scraper/sourcestest"
)

// notSources are packages under scraper/ that define a Scrape/Normalize
// type without being an upstream source.
var notSources = map[string]string{
	"scraper/fakesource": "the refresh framework's test fake",
}

// declaredSources finds, in the non-test Go files under scraper/, every
// type with both a Scrape and a Normalize method: "scraper/pkg.Type".
func declaredSources(t *testing.T, root string) []string {
	t.Helper()
	methods := map[string]map[string]bool{}
	err := filepath.WalkDir(filepath.Join(root, "scraper"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := filepath.ToSlash(rel)
		if _, skip := notSources[pkg]; skip {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 {
				continue
			}
			typ := fn.Recv.List[0].Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			id, ok := typ.(*ast.Ident)
			if !ok {
				continue
			}
			key := pkg + "." + id.Name
			if methods[key] == nil {
				methods[key] = map[string]bool{}
			}
			methods[key][fn.Name.Name] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for k, m := range methods {
		if m["Scrape"] && m["Normalize"] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// TestEverySourceIsListed fails when a package under scraper/ defines a
// source (a type with Scrape and Normalize) that all.Sources does not
// list: a source that is not listed is never refreshed nor built.
func TestEverySourceIsListed(t *testing.T) {
	root := sourcestest.RepoRoot(t)
	listed := map[string]bool{}
	for _, s := range all.Sources() {
		typ := reflect.TypeOf(s)
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		listed[strings.TrimPrefix(typ.PkgPath(), "github.com/cudb/cudb/")+"."+typ.Name()] = true
	}
	declared := declaredSources(t, root)
	if len(declared) < len(listed) {
		t.Fatalf("found %d source types under scraper/, fewer than the %d listed: the scan is broken", len(declared), len(listed))
	}
	for _, d := range declared {
		if !listed[d] {
			t.Errorf("%s implements a source but scraper/all.Sources does not list it: add it there (its position is its precedence)", d)
		}
	}
}

func TestSourceNamesAreUniqueAndFiled(t *testing.T) {
	seen := map[string]bool{}
	name := regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	for _, s := range all.Sources() {
		if seen[s.Name()] {
			t.Errorf("source %s listed twice", s.Name())
		}
		seen[s.Name()] = true
		if !name.MatchString(s.Name()) {
			t.Errorf("source name %q is not a lowercase file name", s.Name())
		}
		if !strings.HasPrefix(s.URL(), "https://") {
			t.Errorf("source %s cites %q, not an https URL", s.Name(), s.URL())
		}
		if fam := scraper.Family(s); fam == "" || fam == "scraper" {
			t.Errorf("source %s has no family (%q)", s.Name(), fam)
		}
	}
}

// TestNoInitRegistration keeps sources out of package-level side effects:
// no non-test file under scraper/ declares func init.
func TestNoInitRegistration(t *testing.T) {
	root := sourcestest.RepoRoot(t)
	filepath.WalkDir(filepath.Join(root, "scraper"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
				rel, _ := filepath.Rel(root, p)
				t.Errorf("%s declares func init: sources are listed in scraper/all, never registered", filepath.ToSlash(rel))
			}
		}
		return nil
	})
}

// TestWorkflowDerivesFromTheList keeps the nightly workflow on the binary's
// source list: its per-source jobs are a matrix over `cudb refresh --list
// --json`, and it names no source itself (a hand-kept copy would drift).
func TestWorkflowDerivesFromTheList(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(sourcestest.RepoRoot(t), ".github", "workflows", "refresh.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Needs    any `yaml:"needs"`
			Strategy struct {
				FailFast *bool          `yaml:"fail-fast"`
				Matrix   map[string]any `yaml:"matrix"`
			} `yaml:"strategy"`
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	list, ok := wf.Jobs["sources"]
	if !ok {
		t.Fatal("the workflow has no sources job")
	}
	lists := false
	for _, s := range list.Steps {
		lists = lists || strings.Contains(s.Run, "./cudb refresh --list --json")
	}
	if !lists {
		t.Error("the sources job does not run `cudb refresh --list --json`")
	}
	job, ok := wf.Jobs["refresh"]
	if !ok {
		t.Fatal("the workflow has no refresh job")
	}
	if got := job.Strategy.Matrix["source"]; got != "${{ fromJSON(needs.sources.outputs.names) }}" {
		t.Errorf("the refresh matrix is %v, not the sources job's list", got)
	}
	if job.Strategy.FailFast == nil || *job.Strategy.FailFast {
		t.Error("the refresh matrix must set fail-fast: false (one broken page must not cancel the others)")
	}
	runs := false
	for _, s := range job.Steps {
		runs = runs || strings.Contains(s.Run, `./cudb refresh --source "$SOURCE"`)
	}
	if !runs {
		t.Error("the refresh job does not run `cudb refresh --source \"$SOURCE\"`")
	}
	for _, s := range all.Sources() {
		if regexp.MustCompile(`(^|[^a-z0-9-])` + regexp.QuoteMeta(s.Name()) + `($|[^a-z0-9-])`).Match(b) {
			t.Errorf("the workflow names source %s itself; it must come from the list", s.Name())
		}
	}
}
