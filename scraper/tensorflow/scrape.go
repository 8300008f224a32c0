// Package tensorflow is the source for TensorFlow's tested build
// configurations (Linux, Windows and macOS tables of the tensorflow/docs
// install pages), the driver floors and native-Windows GPU cut-off stated
// on its pip and GPU pages, and the `tensorflow[and-cuda]` NVIDIA wheel
// pins (a hand-written CSV beside the snapshots).
package tensorflow

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/mdtab"
	"github.com/cudb/cudb/scraper/internal/srcio"
)

// Source is the TensorFlow source.
type Source struct{}

// Name implements scraper.Source.
func (Source) Name() string { return "tensorflow" }

// URL implements scraper.Source.
func (Source) URL() string { return "https://www.tensorflow.org/install/source#gpu" }

const rawBase = "https://raw.githubusercontent.com/tensorflow/docs/master/site/en/install/"

// Record tables.
const (
	tableBuild   = "tested_build"         // a row of a tested-build table
	tableHistory = "tested_build_history" // a row of an older snapshot the newest table lacks or states differently
	tableDriver  = "driver_floor"         // "CUDA 11.2 requires 450.80.02 or higher"
	tableCutoff  = "windows_gpu_cutoff"   // "TensorFlow 2.10 was the last ... native-Windows"
	tablePin     = "and_cuda_pin"         // tf_and_cuda_pins.csv
)

// doc is one upstream file: its live URL and, in snapshot mode, the file
// under <snapshots>/tensorflow with the commit it was taken at.
type doc struct {
	page     string // source.md, source_windows.md, pip.md, gpu.md
	snapshot string
	commit   string
	date     string
}

func (d doc) url(live bool) string {
	if live || d.commit == "" {
		return rawBase + d.page
	}
	return "https://github.com/tensorflow/docs/blob/" + d.commit + "/site/en/install/" + d.page
}

func (d doc) ref(live bool) string {
	if live {
		return d.page
	}
	return strings.TrimSuffix(d.snapshot, ".md")
}

// The newest snapshot of each page is the main parse. Snapshot file names
// carry a short commit, not a date, so the roles are listed here from the
// snapshots' provenance notes (SOURCES.md).
var (
	sourceMain  = doc{"source.md", "source.md@7c3650212.md", "7c3650212740204359d4ceae481abc79345541be", "2026-03-11"}
	windowsMain = doc{"source_windows.md", "source_windows.md@7c3650212.md", "7c3650212740204359d4ceae481abc79345541be", "2026-03-11"}
	pipMain     = doc{"pip.md", "pip.md@7c3650212.md", "7c3650212740204359d4ceae481abc79345541be", "2026-03-11"}

	// Older snapshots are read only for rows the newest tables lack or
	// state differently: the 2.15.0 row when it said cuDNN 8.8 (ec765851b),
	// the 1.10.1 rows of the 2018 layout (c3fa8643e), and the phantom
	// Windows tensorflow_gpu-2.11.0 row (fc6d14505). Each becomes a
	// conflict, never a build.
	history = []doc{
		{"source.md", "source.md@ec765851b.md", "ec765851b8312bdc4dcf685e41020ce568c7bff2", "2023-11-20"},
		{"source_windows.md", "source_windows.md@fc6d14505.md", "fc6d14505c5d72a96a09496407cea3e1f2db6550", "2023-03-23"},
		{"source.md", "source.md@c3fa8643e.md", "c3fa8643ed86be378cf2285e51f9c6a826a2ce18", "2018-08-28"},
	}

	// Driver floors: the pip page states one per CUDA major (newest
	// first); the retired gpu.md states one per CUDA minor (newest first,
	// so the 2022 "11.2 requires 450.80.02" wins over 2021's "460.x").
	driverDocs = []doc{
		pipMain,
		{"pip.md", "pip.md@7442d72c6.md", "7442d72c60d0868f94a384331305c0e3889097a8", "2023-09-28"},
		{"pip.md", "pip.md@513d92d69.md", "513d92d69cacbe9f2bda19e96045e6b836c93545", "2023-08-11"},
		{"gpu.md", "gpu.md@7c660f603.md", "7c660f603802d4c4c72048937462348a9e37c5b6", "2022-05-05"},
		{"gpu.md", "gpu.md@9d98a0f74.md", "9d98a0f744e5732878a71abf3d2f6cb9a11c0dfa", "2021-05-27"},
		{"gpu.md", "gpu.md@430fe3be3.md", "430fe3be375a1f3f6267b86300e1c0f1d79b2b26", "2020-12-23"},
		{"gpu.md", "gpu.md@cb886cfdd.md", "cb886cfdd16d66ff7f8d1430676ff395b02910e6", "2020-08-17"},
		{"gpu.md", "gpu.md@ddb0907ec.md", "ddb0907eca12e6cddfa34c7c770561a955578230", "2019-12-13"},
		{"gpu.md", "gpu.md@e1727fdc6.md", "e1727fdc6485a1a3f92b6f83f5aa14bcac9cce09", "2018-10-04"},
	}
)

const pinsCSV = "tf_and_cuda_pins.csv"

// Scrape implements scraper.Source. Live mode reads the three current
// pages; the older snapshots and the pins CSV exist only in snapshot mode
// (the live equivalent of the CSV is PyPI's per-release JSON).
func (s Source) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	live := in.Snapshots == ""
	read := func(d doc) ([]byte, error) {
		return srcio.Read(ctx, in, rawBase+d.page, "tensorflow/"+d.snapshot)
	}
	var recs []scraper.Record
	main := map[string]scraper.Record{}
	for _, d := range []doc{sourceMain, windowsMain} {
		b, err := read(d)
		if err != nil {
			return nil, err
		}
		rows, err := TestedBuilds(b, d.page)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.page, err)
		}
		for _, r := range rows {
			rec := r.record(tableBuild, d, live)
			main[rec.Key] = rec
			recs = append(recs, rec)
		}
	}

	pip, err := read(pipMain)
	if err != nil {
		return nil, err
	}
	cut, err := WindowsGPUCutoff(pip)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pipMain.page, err)
	}
	recs = append(recs, scraper.Record{Table: tableCutoff, Key: "native-windows", Ref: pipMain.ref(live),
		URL: pipMain.url(live), Fields: map[string]string{"version": cut.Version, "text": cut.Text}})

	for _, d := range driverDocs {
		if live && d != pipMain {
			continue
		}
		// The pip page was read above for the cut-off: reading it again
		// costs a request and could see a different edition.
		b := pip
		if d != pipMain {
			if b, err = read(d); err != nil {
				return nil, err
			}
		}
		floors, err := DriverFloors(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.snapshot, err)
		}
		for _, f := range floors {
			recs = append(recs, scraper.Record{Table: tableDriver, Key: d.ref(live) + "/" + f.OS + "/" + f.CUDA,
				Ref: d.ref(live), URL: d.url(live), Fields: map[string]string{
					"cuda": f.CUDA, "os": f.OS, "min_driver": f.MinDriver, "text": f.Text, "date": d.date}})
		}
	}
	patch, err := scrapePatches(ctx, in)
	if err != nil {
		return nil, err
	}
	recs = append(recs, patch...)
	if live {
		return recs, nil
	}

	for _, d := range history {
		b, err := read(d)
		if err != nil {
			return nil, err
		}
		rows, err := TestedBuilds(b, d.page)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.snapshot, err)
		}
		for _, r := range rows {
			rec := r.record(tableHistory, d, false)
			cur, ok := main[rec.Key]
			if ok && sameRow(cur, rec) {
				continue
			}
			rec.Key = d.ref(false) + "/" + rec.Key
			rec.Fields["snapshot_date"] = d.date
			recs = append(recs, rec)
		}
	}

	b, err := srcio.Read(ctx, in, "", "tensorflow/"+pinsCSV)
	if err != nil {
		return nil, err
	}
	rows, err := srcio.CSV(b, "tf_version", "package_name", "extra", "dependency", "pinned_spec", "evidence", "source_repo", "source_path", "commit", "notes")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pinsCSV, err)
	}
	for _, r := range rows {
		recs = append(recs, scraper.Record{Table: tablePin, Key: r.Fields["tf_version"] + "/" + r.Fields["dependency"],
			Ref: fmt.Sprintf("%s line %d", pinsCSV, r.Line), Fields: r.Fields})
	}
	return recs, nil
}

var cellKeys = []string{"python", "compiler", "build_tools", "cudnn", "cuda"}

func sameRow(a, b scraper.Record) bool {
	for _, k := range append([]string{"package", "version"}, cellKeys...) {
		if a.Fields[k] != b.Fields[k] {
			return false
		}
	}
	return true
}

// Row is one tested-build row as the page gives it.
type Row struct {
	Platform string // linux, windows, macos
	Device   string // cpu, gpu
	Section  string
	Line     int
	Nth      int               // 1 for the first row with this version cell in its table, 2 for a repeat, ...
	Cells    map[string]string // version, python, compiler, build_tools, cudnn, cuda
}

func (r Row) record(table string, d doc, live bool) scraper.Record {
	f := map[string]string{"platform": r.Platform, "device": r.Device, "section": r.Section}
	for k, v := range r.Cells {
		f[k] = v
	}
	pkg, ver, ok := strings.Cut(r.Cells["version"], "-")
	if ok {
		f["package"], f["version"] = pkg, ver
	}
	f["version_cell"] = r.Cells["version"]
	key := r.Platform + "/" + r.Device + "/" + r.Cells["version"]
	if r.Nth > 1 {
		key += fmt.Sprintf("#%d", r.Nth)
	}
	return scraper.Record{Table: table, Key: key, URL: d.url(live),
		Ref: fmt.Sprintf("%s line %d (%s)", d.ref(live), r.Line, r.Section), Fields: f}
}

// headerKey maps a column header to a field; the 2018 layout writes
// "Version:" and adds a "CPU/GPU:" column.
func headerKey(h string) string {
	h = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(h), ":"))
	switch h {
	case "version":
		return "version"
	case "python version":
		return "python"
	case "compiler":
		return "compiler"
	case "build tools":
		return "build_tools"
	case "cudnn":
		return "cudnn"
	case "cuda":
		return "cuda"
	case "cpu/gpu":
		return "device"
	}
	return ""
}

// TestedBuilds reads the tested-build tables of source.md or
// source_windows.md, choosing them by section heading: "Tested build
// configurations" (or the 2018 "Tested source configurations") and then
// Linux/macOS/Windows and CPU/GPU. A missing section or a table without a
// version column is an error.
func TestedBuilds(src []byte, page string) ([]Row, error) {
	tables, err := mdtab.HTMLTables(src)
	if err != nil {
		return nil, err
	}
	type want struct {
		platform, device string
		path             []string
	}
	var wants []want
	optional := map[int]bool{}
	if page == "source_windows.md" {
		wants = []want{{"windows", "cpu", []string{"Tested build configurations", "CPU"}},
			{"windows", "gpu", []string{"Tested build configurations", "GPU"}}}
	} else {
		wants = []want{{"linux", "cpu", []string{"Tested build configurations", "Linux", "CPU"}},
			{"linux", "gpu", []string{"Tested build configurations", "Linux", "GPU"}},
			{"macos", "cpu", []string{"Tested build configurations", "macOS", "CPU"}},
			{"macos", "gpu", []string{"Tested build configurations", "macOS", "GPU"}}}
		optional[2], optional[3] = true, true
		if len(mdtab.Find(tables, "Tested build configurations")) == 0 && len(mdtab.Find(tables, "Tested source configurations", "Linux")) > 0 {
			// The 2018 layout: one table per OS, device in a column.
			wants = []want{{"linux", "", []string{"Tested source configurations", "Linux"}},
				{"macos", "", []string{"Tested source configurations", "Mac"}},
				{"windows", "", []string{"Tested source configurations", "Windows"}}}
			optional = map[int]bool{1: true, 2: true}
		}
	}
	var out []Row
	for i, w := range wants {
		found := mdtab.Find(tables, w.path...)
		if len(found) == 0 {
			if optional[i] {
				continue
			}
			return nil, fmt.Errorf("no table under the heading %q", strings.Join(w.path, " > "))
		}
		for _, t := range found {
			rows, err := tableRows(t, w.platform, w.device)
			if err != nil {
				return nil, err
			}
			out = append(out, rows...)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the tested-build tables have no rows")
	}
	return out, nil
}

func tableRows(t mdtab.Table, platform, device string) ([]Row, error) {
	cols := make([]string, len(t.Header))
	hasVersion := false
	for i, h := range t.Header {
		cols[i] = headerKey(h)
		hasVersion = hasVersion || cols[i] == "version"
	}
	if !hasVersion {
		return nil, fmt.Errorf("table at line %d (%s) has no Version column (header %q)", t.Line, t.Section(), t.Header)
	}
	seen := map[string]int{}
	var out []Row
	for _, r := range t.Rows {
		cells := map[string]string{}
		for i, c := range r.Cells {
			if i < len(cols) && cols[i] != "" {
				cells[cols[i]] = c
			}
		}
		dev := device
		if d := strings.ToLower(cells["device"]); d != "" {
			dev = d
			delete(cells, "device")
		}
		for _, k := range []string{"cudnn", "cuda"} {
			if strings.EqualFold(cells[k], "N/A") {
				delete(cells, k)
			}
		}
		seen[cells["version"]]++
		out = append(out, Row{Platform: platform, Device: dev, Section: t.Section(), Line: r.Line, Nth: seen[cells["version"]], Cells: cells})
	}
	return out, nil
}

// Cutoff is the last TensorFlow release with native-Windows GPU support,
// as the pip page words it.
type Cutoff struct{ Version, Text string }

var cutoffRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("TensorFlow `?(\\d+\\.\\d+(?:\\.\\d+)?)`? was the \\**last\\** TensorFlow release that supported GPU on native-Windows")
})

// WindowsGPUCutoff finds the pip page's statement of the last
// native-Windows GPU release.
func WindowsGPUCutoff(src []byte) (Cutoff, error) {
	text := strings.Join(strings.Fields(string(src)), " ")
	m := cutoffRE().FindStringSubmatch(text)
	if m == nil {
		return Cutoff{}, fmt.Errorf("no statement of the last native-Windows GPU release")
	}
	return Cutoff{Version: m[1], Text: strings.ReplaceAll(m[0], "*", "")}, nil
}

// Floor is a driver minimum the docs state for a CUDA version ("11.2") or,
// on the pip page, for the CUDA major of the toolkit it names ("12").
type Floor struct{ CUDA, OS, MinDriver, Text string }

var (
	gpuFloorRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:CUDA(?:®)? )?(\d+\.\d+) requires (\d+(?:\.\d+)*)(?:\.x)? or higher`)
	})
	pipLinuxRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`>= ?(\d+(?:\.\d+)+) for Linux`) })
	pipWSLRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`>= ?(\d+(?:\.\d+)+) for WSL on Windows`) })
	pipOldRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`version (\d+\.\d+\.\d+) or higher`) })
	toolkitRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`CUDA(?:®)? Toolkit (\d+)\.(\d+)`) })
	majorOnlyRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+`) })
)

// DriverFloors reads the driver minimums of pip.md or gpu.md.
func DriverFloors(src []byte) ([]Floor, error) {
	text := strings.Join(strings.Fields(string(src)), " ")
	var out []Floor
	for _, m := range gpuFloorRE().FindAllStringSubmatch(text, -1) {
		out = append(out, Floor{CUDA: m[1], OS: "linux", MinDriver: m[2], Text: m[0]})
	}
	if len(out) > 0 {
		return out, nil
	}
	tk := toolkitRE().FindStringSubmatch(text)
	if tk == nil {
		return nil, fmt.Errorf("no CUDA Toolkit version beside the driver requirement")
	}
	major := majorOnlyRE().FindString(tk[1])
	if m := pipLinuxRE().FindStringSubmatch(text); m != nil {
		out = append(out, Floor{CUDA: major, OS: "linux", MinDriver: m[1], Text: m[0] + " (" + tk[0] + ")"})
		if w := pipWSLRE().FindStringSubmatch(text); w != nil {
			out = append(out, Floor{CUDA: major, OS: "wsl", MinDriver: w[1], Text: w[0] + " (" + tk[0] + ")"})
		}
	} else if m := pipOldRE().FindStringSubmatch(text); m != nil {
		out = append(out, Floor{CUDA: major, OS: "linux", MinDriver: m[1], Text: m[0] + " (" + tk[0] + ")"})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no driver requirement found")
	}
	return out, nil
}
