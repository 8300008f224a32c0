package cudnn

import (
	"testing"

	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/nvsrc"
)

func csvRec(key string, f map[string]string) scraper.Record {
	return scraper.Record{Table: nvsrc.TableCSV, Key: key, Fields: f}
}

// Lists hold versions only: "10.1 Update 2" is CUDA 10.1, "SM 3.5 and
// later" a floor in its own field, "7.x" the 7.x compute capabilities;
// a row that names only the release and its CUDA major (redist manifest)
// is a known release, not a blank support row.
func TestRowsAreLists(t *testing.T) {
	f, err := New().Normalize([]scraper.Record{
		csvRec("8.0.3|10.1", map[string]string{"cudnn_version": "8.0.3", "cuda_major_line": "10.x", "cuda_versions": "10.1 Update 2",
			"driver_raw": "r418.39", "compute_capabilities": "SM 3.0 and later"}),
		csvRec("7.6.0|10.0", map[string]string{"cudnn_version": "7.6.0", "cuda_major_line": "10.x", "cuda_versions": "10.0",
			"driver_raw": "r410", "compute_capabilities": "7.5;7.x;7.2;6.x"}),
		csvRec("9.27.0|13", map[string]string{"cudnn_version": "9.27.0", "cuda_major_line": "13.x", "release_date": "2026-10-21"}),
		csvRec("9.27.0|12", map[string]string{"cudnn_version": "9.27.0", "cuda_major_line": "12.x", "release_date": "2026-10-21"}),
		csvRec("7.0.0|9", map[string]string{"cudnn_version": "7.0.0", "cuda_major_line": "9.x", "cuda_versions": "9.0", "compute_capabilities": "SM 9000 or so"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.CUDNN) != 2 {
		t.Fatalf("support rows %+v", f.CUDNN)
	}
	for _, c := range f.CUDNN {
		switch c.CUDNN {
		case "8.0.3":
			if c.CUDAVersions != "10.1" || c.CCList != "" || c.CCMin != "3.0" || c.MinDriverLinux != "418.39" {
				t.Errorf("8.0.3 row %+v", c)
			}
		case "7.6.0":
			if c.CCList != "7.5;7.0;7.2;6.0;6.1;6.2" {
				t.Errorf("7.6.0 compute capabilities %q", c.CCList)
			}
		}
	}
	if len(f.Releases) != 1 || f.Releases[0].Version != "9.27.0" || f.Releases[0].ReleasedOn != "2026-10-21" {
		t.Errorf("manifest-only rows: releases %+v", f.Releases)
	}
	var majors string
	for _, a := range f.Attributes {
		if a.Version == "9.27.0" && a.Key == "cuda_majors" {
			majors = a.Value
		}
	}
	if majors != "13.x;12.x" {
		t.Errorf("9.27.0 cuda_majors %q", majors)
	}
	var refused bool
	for _, c := range f.Conflicts {
		refused = refused || (c.Field == "refused" && c.Subject == "cudnn 7.0.0|9")
	}
	if !refused {
		t.Errorf("prose compute capability not refused: %+v", f.Conflicts)
	}
}
