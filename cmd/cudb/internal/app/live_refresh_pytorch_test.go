package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/scraper/livetest"
)

// The PyTorch sources' live pages, served from the fixtures of
// scraper/pytorch; the URLs are the upstream ones the sources read.
const ptFixtures = "../../../../scraper/pytorch/testdata/"

var (
	moi90URL = "https://raw.githubusercontent.com/moi90/pytorch_compute_capabilities/"
	ptLive   = map[string]map[string]string{
		"pytorch-lockfiles": {
			"https://pypi.org/pypi/torch/json":        "live/pypi_torch.json",
			"https://pypi.org/pypi/torch/1.13.1/json": "live/pypi_torch_1.13.1.json",
			"https://pypi.org/pypi/torch/2.1.0/json":  "live/pypi_torch_2.1.0.json",
			"https://pypi.org/pypi/torch/2.5.1/json":  "live/pypi_torch_2.5.1.json",
			"https://pypi.org/pypi/torch/2.11.0/json": "live/pypi_torch_2.11.0.json",
		},
		"pytorch-previous-versions": {
			"https://raw.githubusercontent.com/pytorch/pytorch.github.io/site/_get_started/previous-versions.md": "previous-versions.md",
		},
		"pytorch-build-matrix": {
			"https://raw.githubusercontent.com/pytorch/pytorch.github.io/site/published_versions.json": "live/published_versions.json",
		},
		"pytorch-release-md": {
			"https://raw.githubusercontent.com/pytorch/pytorch/main/RELEASE.md": "live/release.md",
		},
		"pytorch-moi90": {
			moi90URL + "main/table.md":                                     "moi90.md",
			moi90URL + "2431f175782e769a43ca670788e17ee6c020db54/table.md": "moi90.md",
			moi90URL + "6bbfa99e99cdc2d4b3bbd0de86dab3748ca489cf/table.md": "moi90.md",
		},
		"pytorch-domains": {
			"https://raw.githubusercontent.com/pytorch/vision/main/README.md":                   "vision_README.md",
			"https://raw.githubusercontent.com/pytorch/audio/main/docs/source/installation.rst": "audio_installation.rst",
		},
	}
	// ptSad breaks one page per source: its table is gone (a 200 answer,
	// so the failure is the parser's, not a retried status).
	ptSad = map[string][2]string{
		"pytorch-lockfiles":         {"https://pypi.org/pypi/torch/2.1.0/json", `{"info": {"version": "2.1.0"}}`},
		"pytorch-previous-versions": {"https://raw.githubusercontent.com/pytorch/pytorch.github.io/site/_get_started/previous-versions.md", "# moved\n"},
		"pytorch-build-matrix":      {"https://raw.githubusercontent.com/pytorch/pytorch.github.io/site/published_versions.json", `{"latest_stable": "2.1.0"}`},
		"pytorch-release-md":        {"https://raw.githubusercontent.com/pytorch/pytorch/main/RELEASE.md", "# moved\n"},
		"pytorch-moi90":             {moi90URL + "main/table.md", "# moved\n"},
		"pytorch-domains":           {"https://raw.githubusercontent.com/pytorch/vision/main/README.md", "# moved\n"},
	}
)

func TestRefreshCLIPyTorchLive(t *testing.T) {
	for name, pages := range ptLive {
		t.Run(name, func(t *testing.T) {
			files := map[string]string{}
			for u, f := range pages {
				files[u] = filepath.FromSlash(ptFixtures + f)
			}
			data := t.TempDir()

			up := livetest.New(t, files)
			sad := ptSad[name]
			up.Set(t, sad[0], []byte(sad[1]))
			code, _, errOut := run("refresh", "--init", "--source", name, "--data", data, "--base-url", up.URL)
			if code != 1 {
				t.Fatalf("sad page: exit %d, want 1\n%s", code, errOut)
			}
			if !strings.Contains(errOut, "sources failed (their previous data was kept): "+name+"\n") {
				t.Fatalf("stderr does not name %s:\n%s", name, errOut)
			}
			if _, err := os.Stat(filepath.Join(data, "sources", name+".json")); !os.IsNotExist(err) {
				t.Fatalf("a failed source wrote its snapshot (stat: %v)", err)
			}

			happy := livetest.New(t, files)
			code, _, errOut = run("refresh", "--init", "--source", name, "--data", data, "--base-url", happy.URL)
			if code != 0 {
				t.Fatalf("happy page: exit %d\n%s", code, errOut)
			}
			if _, err := os.Stat(filepath.Join(data, "sources", name+".json")); err != nil {
				t.Fatal(err)
			}
		})
	}
}
