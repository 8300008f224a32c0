package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/scraper/livetest"
	"github.com/cudb/cudb/scraper/redist"
)

// `cudb refresh --source nvidia-redist` against NVIDIA's redist directories
// served on loopback from the source's fixtures: a manifest that is not
// JSON fails the source and writes nothing; the real manifests give the
// snapshot, and the built database answers from it.
func TestRefreshCLIRedistLive(t *testing.T) {
	const dir = "../../../../scraper/redist/"
	files := map[string]string{
		redist.ListingURL(redist.ProductCUDA):                 dir + "testdata/cuda-listing.html",
		redist.ListingURL(redist.ProductCUDNN):                dir + "testdata/cudnn-listing.html",
		redist.ManifestURL(redist.ProductCUDA, "13.1.1"):      dir + "captures/cuda_redistrib_13.1.1.json",
		redist.ManifestURL(redist.ProductCUDA, "13.4.2"):      dir + "captures/cuda_redistrib_13.4.2.json",
		redist.ManifestURL(redist.ProductCUDNN, "9.27.0"):     dir + "testdata/cudnn_redistrib_9.27.0.json",
		redist.ListingURL(redist.ProductDriver):               dir + "testdata/nvidia-driver-listing.html",
		redist.ManifestURL(redist.ProductDriver, "610.57.04"): dir + "captures/nvidia-driver_redistrib_610.57.04.json",
		redist.ManifestURL(redist.ProductDriver, "620.70.06"): dir + "captures/nvidia-driver_redistrib_620.70.06.json",
	}
	for u, f := range files {
		files[u] = filepath.FromSlash(f)
	}
	data := t.TempDir()
	sad := livetest.New(t, files)
	sad.Set(t, redist.ManifestURL(redist.ProductCUDA, "13.4.2"), []byte("<html>moved</html>"))
	code, _, errOut := run("refresh", "--init", "--source", redist.Name, "--data", data, "--base-url", sad.URL)
	if code != 1 || !strings.Contains(errOut, "sources failed (their previous data was kept): "+redist.Name+"\n") {
		t.Fatalf("sad manifest: exit %d\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(data, "sources", redist.Name+".json")); !os.IsNotExist(err) {
		t.Fatalf("a failed source wrote its snapshot (stat: %v)", err)
	}

	happy := livetest.New(t, files)
	code, _, errOut = run("refresh", "--init", "--source", redist.Name, "--data", data, "--base-url", happy.URL)
	if code != 0 {
		t.Fatalf("happy: exit %d\n%s", code, errOut)
	}
	code, out, errOut := run("--db", filepath.Join(data, "cudb.db"), "--json", "db", "dump", "--table", "attribute")
	if code != 0 {
		t.Fatalf("db dump: exit %d\n%s", code, errOut)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("db dump --json: %v\n%s", err, out)
	}
	found := map[string]bool{}
	for _, r := range rows {
		found[r["component"].(string)+" "+r["version"].(string)+" "+r["key"].(string)+" = "+r["value"].(string)] = true
	}
	for _, want := range []string{"cuda 13.1.1 bundled_linux_driver = 590.48.01", "cuda 13.4.2 cudart = 13.4.92",
		"cuda 13.4.2 bundled_linux_driver = " + redist.NoBundledDriver, "cudnn 9.27.0 build_version = 9.27.0.42",
		"driver 620.70.06 cuda_compat = 620.70.06 (for CUDA 13.5)"} {
		if !found[want] {
			t.Errorf("the refreshed database lacks %q", want)
		}
	}
}
