package onnxruntime

import (
	"strings"
	"testing"

	"github.com/cudb/cudb/scraper/livetest"
)

// The live refresh end to end: the CUDA Execution Provider page served on
// loopback, read through the fetch client, checked, and written by
// scraper.Refresh.

var livePages = map[string]string{liveDoc: "testdata/ep_ok.md", liveInstall: "testdata/install_ok.md", liveSimple: "testdata/simple_ok.html"}

func TestLiveRefreshHappy(t *testing.T) {
	snap := livetest.New(t, livePages).MustPass(t, Source{}, t.TempDir())
	if len(snap.Records) != 7 {
		t.Errorf("wrote %d rows, want the table's 2, the install page's 2 GPU sections and the simple index's 3 wheels", len(snap.Records))
	}
	got := map[string]map[string]string{}
	for _, r := range snap.Records {
		got[r.Key] = r.Fields
	}
	if r := got["Requirements/1.5-1.6"]; r["cuda"] != "10.2" || r["cudnn"] != "8.0.3" {
		t.Errorf("1.5-1.6 row = %v (all %v)", r, got)
	}
	if r := got["cuda12"]; r["index_url"] != "https://aiinfra.pkgs.visualstudio.com/PublicPackages/_packaging/onnxruntime-cuda-12/pypi/simple/" || r["index_option"] != "extra-index-url" {
		t.Errorf("CUDA 12 install section = %v", r)
	}
	if r := got["cuda11"]; r["index_url"] != "" || r["command"] != "pip install onnxruntime-gpu" {
		t.Errorf("CUDA 11 install section = %v", r)
	}
	w := got["wheel https://files.pythonhosted.org/packages/fa/96/1be0b9711a614861fbf5c0c85c4da3aa2321f9da0b4734a717eb606f70ab/onnxruntime_gpu-1.29.0-cp312-cp312-manylinux_2_34_aarch64.whl"]
	if w["version"] != "1.29.0" || w["platform"] != "linux-aarch64" || w["python_tag"] != "cp312" {
		t.Errorf("aarch64 wheel = %v", w)
	}
}

// A simple index that links no wheel fails the source: an empty list is
// never taken as "no wheels".
func TestLiveRefreshSimpleIndexEmpty(t *testing.T) {
	dir, _ := livetest.Prime(t, Source{}, livePages)
	err := livetest.New(t, map[string]string{liveDoc: "testdata/ep_ok.md", liveInstall: "testdata/install_ok.md", liveSimple: "testdata/simple_none.html"}).MustFail(t, Source{}, dir)
	if !strings.Contains(err, "no onnxruntime-gpu wheel address") {
		t.Errorf("error %q does not say the index links no wheel", err)
	}
}

func TestLiveRefreshRetries(t *testing.T) {
	up := livetest.New(t, livePages)
	up.FailFirst = 1
	up.MustPass(t, Source{}, t.TempDir())
	if n := up.Hits(liveDoc); n != 2 {
		t.Errorf("EP page fetched %d times, want 2 (a 500, then the page)", n)
	}
}

func TestLiveRefreshSadKeepsPrevious(t *testing.T) {
	for _, c := range []struct{ name, file, why string }{
		{"table moved", "testdata/ep_moved.md", "no ONNX Runtime/CUDA/cuDNN table under a Requirements heading"},
		{"table vanished", "testdata/ep_empty.md", "no ONNX Runtime/CUDA/cuDNN table under a Requirements heading"},
		{"empty table", "testdata/ep_empty_table.md", "has no rows"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := livetest.Prime(t, Source{}, livePages)
			if err := livetest.New(t, map[string]string{liveDoc: c.file, liveInstall: "testdata/install_ok.md", liveSimple: "testdata/simple_ok.html"}).MustFail(t, Source{}, dir); !strings.Contains(err, c.why) {
				t.Errorf("error %q does not say %q", err, c.why)
			}
		})
	}
}

// A garbage CUDA cell beside a good row fails the source (the field's
// grammar is a dotted version), and the previous file is kept: a row is
// never dropped silently.
func TestLiveRefreshGarbageRow(t *testing.T) {
	dir, _ := livetest.Prime(t, Source{}, livePages)
	err := livetest.New(t, map[string]string{liveDoc: "testdata/ep_garbage.md", liveInstall: "testdata/install_ok.md", liveSimple: "testdata/simple_ok.html"}).MustFail(t, Source{}, dir)
	if !strings.Contains(err, `field cuda: "ten" does not parse as a version`) {
		t.Errorf("error %q does not name the garbage cell", err)
	}
}

// An install page whose GPU section lost its pip command fails the
// source; the previous data is kept.
func TestLiveRefreshInstallPageBroken(t *testing.T) {
	dir, _ := livetest.Prime(t, Source{}, livePages)
	err := livetest.New(t, map[string]string{liveDoc: "testdata/ep_ok.md", liveInstall: "testdata/install_no_command.md", liveSimple: "testdata/simple_ok.html"}).MustFail(t, Source{}, dir)
	if !strings.Contains(err, "CUDA 12.x section") || !strings.Contains(err, "no pip install command") {
		t.Errorf("error %q does not name the broken section", err)
	}
}
