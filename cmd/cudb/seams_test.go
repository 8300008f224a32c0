package main

import (
	"os/exec"
	"strings"
	"testing"
)

// testSupport are the packages that exist for tests only: fakes, fixture
// loaders, httptest upstreams. The release binary must link none of them
// (test seams belong in tests, injected through Options and Factory).
var testSupport = []string{
	"github.com/cudb/cudb/internal/probe/probetest",
	"github.com/cudb/cudb/scraper/fakesource",
	"github.com/cudb/cudb/scraper/livetest",
	"github.com/cudb/cudb/scraper/sourcestest",
	"github.com/cudb/cudb/scraper/internal/nvsrc/nvtest",
	"github.com/cudb/cudb/query/querytest",
}

func TestBinaryLinksNoTestSupport(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	if !deps["github.com/cudb/cudb/scraper/all"] {
		t.Fatal("go list -deps does not show scraper/all: the check would prove nothing")
	}
	for _, p := range testSupport {
		if deps[p] {
			t.Errorf("the cudb binary links %s, a test-support package", p)
		}
	}
}
