package main

import (
	"os/exec"
	"strings"
	"testing"
)

// parsers are the markdown and HTML parsing modules: only the scrapers
// (`cudb refresh`, `cudb db build`) read documents.
var parsers = []string{"github.com/yuin/goldmark", "github.com/PuerkitoBio/goquery", "github.com/andybalholm/cascadia", "golang.org/x/net/html"}

func isParser(pkg string) bool {
	for _, p := range parsers {
		if pkg == p || strings.HasPrefix(pkg, p+"/") {
			return true
		}
	}
	return false
}

// goList returns, for each package in the dependency graph of pkgs,
// the packages it imports.
func goList(t *testing.T, pkgs ...string) map[string][]string {
	t.Helper()
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}"}, pkgs...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		graph[f[0]] = f[1:]
	}
	return graph
}

// TestQueryPackagesParseNoDocuments: the packages that answer questions
// (and serve them) do not depend on a markdown or HTML parser or on the
// scrapers, so nothing of them is initialised for a query.
func TestQueryPackagesParseNoDocuments(t *testing.T) {
	query := []string{"github.com/cudb/cudb/query/...", "github.com/cudb/cudb/db", "github.com/cudb/cudb/data",
		"github.com/cudb/cudb/internal/...", "github.com/cudb/cudb/cmd/cudb/internal/httpapi",
		"github.com/cudb/cudb/cmd/cudb/internal/site", "github.com/cudb/cudb/cmd/cudb/internal/mcptools"}
	for pkg := range goList(t, query...) {
		if isParser(pkg) || strings.HasPrefix(pkg, "github.com/cudb/cudb/scraper") {
			t.Errorf("a query package depends on %s", pkg)
		}
	}
}

// TestBinaryInitGraph: every package linked into cudb is initialised at
// every start, whatever the command. No markdown library is linked (the
// scrapers read markdown with scraper/internal/mdtab), and the HTML
// parser is reached only through scraper packages.
func TestBinaryInitGraph(t *testing.T) {
	graph := goList(t, "github.com/cudb/cudb/cmd/cudb")
	if len(graph) < 10 {
		t.Fatalf("go list found %d packages", len(graph))
	}
	for pkg, imports := range graph {
		if strings.HasPrefix(pkg, "github.com/yuin/goldmark") {
			t.Errorf("cudb links %s: its initialisation runs on every start", pkg)
		}
		if isParser(pkg) || strings.HasPrefix(pkg, "github.com/cudb/cudb/scraper") {
			continue
		}
		for _, imp := range imports {
			if isParser(imp) {
				t.Errorf("%s imports %s: only scraper packages may parse documents", pkg, imp)
			}
		}
	}
}
