package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/cmd/cudb/internal/cli"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/livetest"
)

// TestLiveRefreshExitStatus runs `cudb refresh --source NAME` against a
// loopback upstream serving one sad live page per source: the command
// must exit 1, name the source on stderr and in the JSON report, and
// write no snapshot for it.
func TestLiveRefreshExitStatus(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..", "scraper")
	cases := []struct{ source, url, file string }{
		{"cudadriver", "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html", "cudadriver/testdata/sad-no-table.html"},
		{"cudnn", "https://docs.nvidia.com/deeplearning/cudnn/latest/support-matrix/index.html", "cudnn/testdata/sad-headers-lost.html"},
		{"gpus", "https://developer.nvidia.com/cuda-gpus", "gpus/testdata/sad-empty.html"},
		{"cudaarch", "https://docs.nvidia.com/datacenter/tesla/drivers/cuda-toolkit-driver-and-architecture-matrix.html", "cudaarch/testdata/sad-no-table.html"},
		{"driverbranch", "https://docs.nvidia.com/datacenter/tesla/drivers/supported-drivers-and-cuda-toolkit-versions.html", "driverbranch/testdata/sad-empty-table.html"},
		{"tensorflow", "https://raw.githubusercontent.com/tensorflow/docs/master/site/en/install/source.md", "tensorflow/testdata/source_moved.md"},
		{"jax", "https://raw.githubusercontent.com/jax-ml/jax/main/docs/installation.md", "jax/testdata/install_garbage.md"},
		{"onnxruntime", "https://raw.githubusercontent.com/microsoft/onnxruntime/gh-pages/docs/execution-providers/CUDA-ExecutionProvider.md", "onnxruntime/testdata/ep_empty_table.md"},
	}
	// Pages a source reads beside the sad one, served as they should be.
	beside := map[string]map[string]string{
		"jax": {"https://pypi.org/pypi/jax/json": "jax/testdata/pypi_jax.json"},
	}
	for _, c := range cases {
		t.Run(c.source, func(t *testing.T) {
			pages := map[string]string{c.url: filepath.Join(root, c.file)}
			for u, f := range beside[c.source] {
				pages[u] = filepath.Join(root, f)
			}
			up := livetest.New(t, pages)
			dir := t.TempDir()
			s, out, errOut := cli.TestStreams("")
			code := Main([]string{"refresh", "--init", "--source", c.source, "--data", dir, "--base-url", up.URL, "--json"}, s)
			if code != 1 {
				t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			if !strings.Contains(errOut.String(), c.source) {
				t.Errorf("stderr does not name %s: %s", c.source, errOut)
			}
			if up.Hits(c.url) == 0 {
				t.Errorf("the sad page was never requested: the refresh did not go to the test server")
			}
			var rep scraper.Report
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatalf("stdout is not the JSON report: %v\n%s", err, out)
			}
			if len(rep.Failed) != 1 || rep.Failed[0] != c.source {
				t.Errorf("report failed = %v, want [%s]", rep.Failed, c.source)
			}
			if _, err := os.Stat(scraper.SnapshotPath(dir, c.source)); !os.IsNotExist(err) {
				t.Errorf("a failed refresh left a snapshot of %s (%v)", c.source, err)
			}
		})
	}
}
