package pytorch

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// BuildMatrix imports the fact tables derived from PyTorch's build
// scripts and install-matrix generator (shared/sources/pytorch/derived).
//
// Live, it reads what that generator publishes, pytorch.org's
// published_versions.json (see publishedversions.go), into install_matrix
// rows only. The other tables (release_matrix, arch_list, toolchain,
// cuda_pins) were derived from build scripts at chosen commits and have
// no live document; in live mode they are absent, and Normalize treats
// every table as optional (it fails only when no build comes out).
type BuildMatrix struct{}

type csvTable struct {
	table, file  string
	keyCols, ref []string
}

var matrixTables = []csvTable{
	{"release_matrix", "torch_release_matrix.csv", []string{"torch_version"}, []string{"sources"}},
	{"install_matrix", "testinfra_release_install_matrix.csv",
		[]string{"torch_stable_version", "os", "package_type", "variant", "commit_role"},
		[]string{"source_repo", "source_path", "source_commit"}},
	{"arch_list", "torch_cuda_arch_list.csv", []string{"torch_version", "cuda_variant", "platform"},
		[]string{"source_repo", "source_path", "source_commit"}},
	{"toolchain", "torch_cuda_build_toolchain.csv", []string{"torch_version", "cuda_variant", "platform"},
		[]string{"source_repo", "source_path", "source_commit"}},
	{"cuda_pins", "torch_cuda_pins.csv", []string{"torch_version", "cuda_variant", "package"},
		[]string{"source_repo", "source_path", "source_commit"}},
}

// Accumulates: published_versions.json lists what the selector offers; the test-infra install matrix read from snapshots has rows it lacks, and they stay (scraper.Accumulator).
func (BuildMatrix) Accumulates() bool { return true }

func (BuildMatrix) Name() string { return "pytorch-build-matrix" }
func (BuildMatrix) URL() string {
	return "https://github.com/pytorch/test-infra/blob/main/tools/scripts/generate_binary_build_matrix.py"
}

func (s BuildMatrix) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	if in.Fetcher != nil {
		return scrapePublishedVersions(ctx, in.Fetcher)
	}
	var all []scraper.Record
	for _, t := range matrixTables {
		d := doc{snap: "derived/" + t.file}
		b, _, err := d.read(ctx, in)
		if err != nil {
			return nil, err
		}
		recs, err := readCSV(b, t.table, t.file, t.keyCols, t.ref)
		if err != nil {
			return nil, err
		}
		all = append(all, recs...)
	}
	scripts, err := scrapeBuildScripts(ctx, in)
	if err != nil {
		return nil, err
	}
	return append(all, scripts...), nil
}

var reParen = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s*\(.*?\)`) })

func (s BuildMatrix) Normalize(recs []scraper.Record) (*db.Facts, error) {
	f := newFacts(s.Name())
	// Any table may be missing (live scrapes have install_matrix only):
	// a missing table contributes nothing, and the release-row defaults
	// (PyPI default variant, curated Python range) are then not claimed.
	byTable := map[string][]scraper.Record{}
	for _, r := range recs {
		byTable[r.Table] = append(byTable[r.Table], r)
	}
	var releases []string
	releaseCUDNN := map[string]string{} // "2.7.0|cu128" -> "9.7.1.26 (ref)"
	pyRange := map[string][2]string{}
	url := s.URL()
	// Release rows first: they carry the curated default variant and
	// Python range that the other tables' builds are completed with.
	for _, r := range byTable["release_matrix"] {
		v := r.Fields["torch_version"]
		if !reRelease().MatchString(v) {
			f.refuse(r, "torch_version is not a release version")
			continue
		}
		releases = append(releases, v)
		pyRange[v] = [2]string{r.Fields["python_min"], r.Fields["python_max"]}
		p := f.prov(url, r.Ref)
		f.release("torch", v, p)
		pyMin, pyMax := r.Fields["python_min"], r.Fields["python_max"]
		if i := strings.Index(pyMin, "/"); i >= 0 {
			pyMin = pyMin[:i] // "2.7/3.5": 2.7 or >=3.5; the floor is 2.7
		}
		def := r.Fields["pypi_default_linux_variant"]
		cudnn := map[string]string{}
		for _, kv := range splitList(r.Fields["cudnn_by_variant"]) {
			k, val, ok := strings.Cut(kv, ":")
			if ok {
				cudnn[k] = reParen().ReplaceAllString(val, "")
				releaseCUDNN[v+"|"+k] = cudnn[k] + " (" + r.Ref + ")"
			}
		}
		add := func(variant, channel string, plats []string) {
			for _, plat := range plats {
				var b db.Build
				if channel == "conda" {
					b = db.Build{Component: "torch", Version: v, Variant: variant, Platform: plat, Channel: "conda",
						CUDA: cudaOfVariant(variant), Provenance: p}
				} else {
					b = wheelBuild(v, variant, plat, plat == "linux" && variant == def, p)
					if cmpDotted(v, "1.11.0") < 0 {
						// the find-links page per variant is the previous-versions
						// page's to state; do not guess it here
						b.PipVersion, b.IndexURL = "", ""
					}
				}
				b.PythonMin, b.PythonMax = pyMin, pyMax
				f.build(b)
				if channel == "" {
					if c := cudnn[variant]; c != "" && reDotted().MatchString(c) {
						f.require(db.Requirement{Build: b.Key(), Needs: "cudnn", Spec: c, Kind: db.KindBundled, Provenance: p})
					}
				}
			}
		}
		// The row's pairing is the release's: every pip build of it,
		// including the per-OS builds the install matrix adds.
		paired(f, releaseKey(v), r.Fields["torchvision"], r.Fields["torchaudio"], p)
		for _, variant := range splitList(r.Fields["linux_wheel_cuda_variants"]) {
			add(variant, "", platformsOf(variant))
		}
		for _, variant := range splitList(r.Fields["rocm_wheel_variants"]) {
			add(variant, "", []string{"linux"})
		}
		for _, variant := range splitList(r.Fields["other_wheel_variants"]) {
			add(variant, "", platformsOf(variant))
		}
		// The row names the PyPI default even where the wheel list is
		// unknown (1.10.2): that one wheel is stated, so it is a build.
		if def != "" && !strings.Contains(";"+r.Fields["linux_wheel_cuda_variants"]+";"+r.Fields["other_wheel_variants"]+";", ";"+def+";") {
			add(def, "", []string{"linux"})
		}
		for _, variant := range splitList(r.Fields["conda_cuda_variants"]) {
			add(variant, "conda", platformsOf(variant))
		}
	}
	sort.Slice(releases, func(i, j int) bool { return cmpDotted(releases[i], releases[j]) < 0 })
	s.installMatrix(f, byTable["install_matrix"], url)
	// The Windows arch lists attach to the Windows builds, some of which
	// the toolchain rows (the Windows cuDNN read at a release branch) make:
	// they are read after those.
	for _, r := range byTable["arch_list"] {
		if !strings.Contains(r.Fields["platform"], "windows") {
			s.archRow(f, r, releases, pyRange, url)
		}
	}
	for _, r := range byTable["toolchain"] {
		s.toolchainRow(f, r, releases, pyRange, url)
	}
	for _, r := range byTable["arch_list"] {
		if strings.Contains(r.Fields["platform"], "windows") {
			s.archRow(f, r, releases, pyRange, url)
		}
	}
	for _, r := range byTable["cuda_pins"] {
		spec := r.Fields["spec"]
		ver := r.Fields["pinned_version"]
		if spec == "unpinned" || ver == "" {
			f.refuse(r, "no version pinned in this snapshot")
			continue
		}
		vs := expandVersions(r.Fields["torch_version"], releases)
		if len(vs) == 0 {
			f.refuse(r, "no released torch version matches "+r.Fields["torch_version"])
			continue
		}
		if isDevSnapshot(r.Fields["torch_version"]) {
			// A development snapshot of main is not evidence about a
			// release: the released wheel's pins can differ (2.7.0+cu128
			// requires cuDNN 9.7.1.26 and NCCL 2.26.2; main had moved on to
			// 9.8.0.87 and pinned 2.25.1). It stays a hint, listed here.
			f.refuse(r, devHint(r, vs, releaseCUDNN))
			continue
		}
		for _, v := range vs {
			k := db.BuildKey{Component: "torch", Version: v, Variant: r.Fields["cuda_variant"], Platform: "linux"}
			if _, ok := f.builds[k]; !ok {
				continue
			}
			full := spec + ver
			if strings.ContainsAny(ver[:1], "<>=!~") {
				full = ver // the range is written out in pinned_version
			}
			pinRequirements(f, k, r.Fields["package"], full, r.Fields["environment_marker"], f.prov(rowURL(r, url), r.Ref))
		}
	}
	if len(f.out.Builds) == 0 {
		return nil, fmt.Errorf("no builds among %d records", len(recs))
	}
	return f.result(), nil
}

// archRow attaches an arch_list row's TORCH_CUDA_ARCH_LIST to the builds
// of the releases it names on its platform (Linux x86-64, Linux aarch64 or
// Windows), making the build only for a release-branch Linux wheel row.
func (s BuildMatrix) archRow(f *facts, r scraper.Record, releases []string, pyRange map[string][2]string, url string) {
	plat := "linux"
	switch {
	case strings.Contains(r.Fields["platform"], "aarch64"):
		plat = "linux-aarch64"
	case strings.Contains(r.Fields["platform"], "windows"):
		plat = "windows" // builder's windows/cuda<nnn>.bat: the Windows wheels' own list
	}
	if why := r.Fields["skip"]; why != "" {
		f.refuse(r, why)
		return
	}
	arch, err := archList(r.Fields["sm_list"])
	if err != nil || arch == "" {
		f.refuse(r, fmt.Sprintf("unusable arch list: %v", err))
		return
	}
	vs := expandVersions(r.Fields["torch_version"], releases)
	if len(vs) == 0 {
		f.refuse(r, "no released torch version matches "+r.Fields["torch_version"])
	}
	if strings.HasPrefix(r.Fields["basis"], "main-branch snapshot") {
		// A list read on main is the nightly one (release builds strip
		// +PTX, "[release-only]" PRs): a statement about the minor that
		// only fills a build no release evidence gave a list, a difference
		// from that evidence being a conflict (db.Merge's wide builds).
		seen := map[string]bool{}
		for _, v := range vs {
			minor := v[:strings.LastIndex(v, ".")]
			if seen[minor] {
				continue
			}
			seen[minor] = true
			f.out.Builds = append(f.out.Builds, db.Build{Component: "torch", Version: minor + ".*", Variant: r.Fields["cuda_variant"], Platform: plat,
				ArchList: arch, Provenance: f.prov(rowURL(r, url), r.Ref)})
		}
		return
	}
	for _, v := range vs {
		k := db.BuildKey{Component: "torch", Version: v, Variant: r.Fields["cuda_variant"], Platform: plat}
		if _, ok := f.builds[k]; !ok {
			if !releaseBranchWheel(r, plat) || r.Fields["attach_only"] != "" {
				continue // the variant did not ship for this patch
			}
			f.build(releaseBranchBuild(v, k, pyRange[v], f.prov(rowURL(r, url), r.Ref)))
		}
		f.build(db.Build{Component: k.Component, Version: v, Variant: k.Variant, Platform: plat, ArchList: arch, Provenance: f.prov(rowURL(r, url), r.Ref)})
	}
}

// toolchainRow attaches what a build image or Windows build installed
// (toolkit, cuDNN, NCCL) to the builds of the releases the row names.
//
// A Linux wheel that bundles its CUDA libraries ships the image's cuDNN and
// NCCL. One that pins nvidia-* packages instead ships what the pins say;
// for it, only the NCCL of a release-branch image is kept, as the version
// the release was built and tested against (KindTested): release branches
// build with USE_SYSTEM_NCCL against the image's NCCL, which the wheel's
// nvidia-nccl pin must match, and a pin (KindPin), where one is known,
// still comes first. Its cuDNN is not claimed (the pin can differ).
func (s BuildMatrix) toolchainRow(f *facts, r scraper.Record, releases []string, pyRange map[string][2]string, url string) {
	plat := "linux"
	if strings.Contains(r.Fields["platform"], "windows") {
		plat = "windows"
	}
	if why := r.Fields["skip"]; why != "" {
		f.refuse(r, why)
		return
	}
	vs := expandVersions(r.Fields["torch_version"], releases)
	if len(vs) == 0 {
		f.refuse(r, "no released torch version matches "+r.Fields["torch_version"])
	}
	p := f.prov(rowURL(r, url), r.Ref)
	for _, v := range vs {
		k := db.BuildKey{Component: "torch", Version: v, Variant: r.Fields["cuda_variant"], Platform: plat}
		if _, ok := f.builds[k]; !ok {
			if !releaseBranchWheel(r, plat) || r.Fields["attach_only"] != "" {
				continue
			}
			f.build(releaseBranchBuild(v, k, pyRange[v], p))
		}
		bundled := plat != "linux" || bundlesLibs(v, f.out.Builds[f.builds[k]].IsDefault)
		for _, c := range []struct{ needs, col string }{{"cudnn", "cudnn"}, {"nccl", "nccl"}, {"cuda", "cuda_toolkit_full"}} {
			val := r.Fields[c.col]
			if !reDotted().MatchString(val) {
				continue
			}
			switch {
			case bundled:
				f.require(db.Requirement{Build: k, Needs: c.needs, Spec: val, Kind: db.KindBundled, Provenance: p})
			case c.needs == "nccl" && strings.Contains(r.Fields["source_commit"], "(release/"):
				f.require(db.Requirement{Build: k, Needs: c.needs, Spec: val, Kind: db.KindTested, Provenance: p})
			}
		}
	}
}

// rowURL is the document a row cites: its own (a captured build script at
// its commit), the file a derived row was read from (source_repo,
// source_path and the 40-hex commit that starts source_commit), or else
// the source's.
func rowURL(r scraper.Record, url string) string {
	if r.URL != "" {
		return r.URL
	}
	repo, path := r.Fields["source_repo"], r.Fields["source_path"]
	sha, _, _ := strings.Cut(r.Fields["source_commit"], " ")
	if strings.Count(repo, "/") == 1 && path != "" && !strings.ContainsAny(repo+path, " ?#") && reSHA().MatchString(sha) {
		return "https://github.com/" + repo + "/blob/" + sha + "/" + path
	}
	return url
}

var reSHA = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{40}$`) })

// isDevSnapshot says whether a derived table's version selector names a
// development snapshot ("2.7.0.dev (main)", "main snapshot (~2.10 dev)")
// rather than a release or a release-era branch.
func isDevSnapshot(sel string) bool {
	return strings.Contains(sel, "dev") || strings.Contains(sel, "main")
}

// devHint is the note a development snapshot's pin is listed with: the
// releases it would have been applied to and, for cuDNN, what the
// release's own evidence says where that differs.
func devHint(r scraper.Record, releases []string, releaseCUDNN map[string]string) string {
	pin := r.Fields["package"] + r.Fields["spec"] + r.Fields["pinned_version"]
	msg := fmt.Sprintf("development snapshot, not release evidence: %s is kept out of the pins of torch %s %s (a hint only)",
		pin, strings.Join(releases, ", "), r.Fields["cuda_variant"])
	if strings.HasPrefix(r.Fields["package"], "nvidia-cudnn") {
		var differ []string
		for _, v := range releases {
			if rel, ok := releaseCUDNN[v+"|"+r.Fields["cuda_variant"]]; ok && !strings.HasPrefix(rel, r.Fields["pinned_version"]+" ") {
				differ = append(differ, v+": "+rel)
			}
		}
		if len(differ) > 0 {
			msg += "; the release's cuDNN differs: " + strings.Join(differ, "; ")
		}
	}
	return msg
}

// isLastCommitRow says whether an install-matrix row was generated at the
// last commit before the next release went live (rather than at the
// commit where its version became stable).
func isLastCommitRow(r scraper.Record) bool {
	return strings.HasPrefix(r.Fields["commit_role"], "last commit")
}

// installMatrix adds the per-OS builds of the getting-started generator.
// The Linux x86_64 default comes from the release rows only: at some
// go-live commits the generator's default rule was stale.
//
// A row of the last commit before the next go-live is only believed for
// an (OS, package type, variant) that the version's go-live commit lists
// too: by then the release lists were being prepared for the next release
// (the go-live skill in test-infra describes this), so a variant that
// first appears there (2.3.1 aarch64 cu124, 2.8.0 aarch64 cu130, ...) is
// the next release's build, not one of this version.
func (s BuildMatrix) installMatrix(f *facts, rows []scraper.Record, url string) {
	atGoLive := map[string]bool{}
	hasGoLive := map[string]bool{}
	for _, r := range rows {
		if !isLastCommitRow(r) {
			v := r.Fields["torch_stable_version"]
			hasGoLive[v] = true
			atGoLive[v+"|"+r.Fields["os"]+"|"+r.Fields["package_type"]+"|"+r.Fields["variant"]] = true
		}
	}
	for _, r := range rows {
		v := r.Fields["torch_stable_version"]
		if !reRelease().MatchString(v) {
			f.refuse(r, "torch_stable_version is not a release version")
			continue
		}
		if isLastCommitRow(r) && hasGoLive[v] && !atGoLive[v+"|"+r.Fields["os"]+"|"+r.Fields["package_type"]+"|"+r.Fields["variant"]] {
			f.refuse(r, "variant listed only at the last commit before the next go-live, not at "+v+"'s own go-live: it belongs to the next release")
			continue
		}
		plat := map[string]string{"linux": "linux", "windows": "windows", "macos": "macos",
			"macos-arm64": "macos", "linux-aarch64": "linux-aarch64"}[r.Fields["os"]]
		if plat == "" {
			f.refuse(r, "unknown os "+r.Fields["os"])
			continue
		}
		variant := r.Fields["variant"]
		if variant == "" {
			f.refuse(r, "the install command does not say which build variant it installs")
			continue
		}
		p := f.prov(url, r.Ref)
		if r.URL != "" {
			p.URL = r.URL // a live row cites published_versions.json, not the generator
		}
		lo, hi := pythonRange(r.Fields["python_versions"])
		var b db.Build
		if r.Fields["package_type"] == "conda" {
			b = db.Build{Component: "torch", Version: v, Variant: variant, Platform: plat, Channel: "conda",
				CUDA: cudaOfVariant(variant), Provenance: p}
		} else {
			noIndex := r.Fields["install_cmd_has_no_index_url"] == "yes"
			b = wheelBuild(v, variant, plat, noIndex && plat != "linux", p)
			if plat == "linux-aarch64" && !noIndex {
				b.PipVersion, b.IndexURL = v+"+"+variant, indexURL(v, variant)
			}
			if plat == "windows" {
				b.IsDefault = false // PyPI's Windows wheel is the CPU build, not a CUDA default
			}
		}
		b.PythonMin, b.PythonMax = lo, hi
		if _, known := f.builds[b.Key()]; known {
			// the release rows already set the curated range
			b.PythonMin, b.PythonMax = "", ""
		}
		f.build(b)
	}
}

// bundlesLibs says whether a Linux wheel of torch v ships its CUDA
// libraries (so the build image's cuDNN/NCCL are the ones it carries).
// Per the lock-file notes of the snapshots: from 1.13 the PyPI default
// wheel pins nvidia-* packages instead, and the download.pytorch.org
// wheels bundled theirs until 2.2; from 2.2 on (every CUDA wheel from the
// 2.5 era) they carry pins, so no bundled version is claimed for them.
func bundlesLibs(v string, isDefault bool) bool {
	if cmpDotted(v, "1.13.0") < 0 {
		return true
	}
	return !isDefault && cmpDotted(v, "2.2.0") < 0
}

// releaseKey names every pip build of torch v (see db.AnyBuild).
func releaseKey(v string) db.BuildKey {
	return db.BuildKey{Component: "torch", Version: v, Variant: db.AnyBuild, Platform: db.AnyBuild}
}

func paired(f *facts, k db.BuildKey, vision, audio string, p db.Provenance) {
	if reDotted().MatchString(vision) {
		f.require(db.Requirement{Build: k, Needs: "torchvision", Spec: vision, Kind: db.KindPaired, Provenance: p})
		f.release("torchvision", vision, p)
	}
	if reDotted().MatchString(audio) {
		f.require(db.Requirement{Build: k, Needs: "torchaudio", Spec: audio, Kind: db.KindPaired, Provenance: p})
		f.release("torchaudio", audio, p)
	}
}

// pinRequirements records a pip pin and, for the libraries cudb tracks as
// components, the same version under its canonical name.
func pinRequirements(f *facts, k db.BuildKey, pkg, spec, marker string, p db.Provenance) {
	marker = normMarker(marker)
	f.require(db.Requirement{Build: k, Needs: pkg, Spec: spec, Kind: db.KindPin, Marker: marker, Provenance: p})
	ver := strings.TrimPrefix(spec, "==")
	if ver == spec || !reDotted().MatchString(ver) {
		return
	}
	switch {
	case strings.HasPrefix(pkg, "nvidia-cudnn-"):
		f.require(db.Requirement{Build: k, Needs: "cudnn", Spec: ver, Kind: db.KindPin, Marker: marker, Provenance: p})
	case strings.HasPrefix(pkg, "nvidia-nccl-"):
		f.require(db.Requirement{Build: k, Needs: "nccl", Spec: ver, Kind: db.KindPin, Marker: marker, Provenance: p})
	case strings.HasPrefix(pkg, "nvidia-cuda-runtime-"), strings.HasPrefix(pkg, "cuda-toolkit"):
		f.require(db.Requirement{Build: k, Needs: "cuda", Spec: ver, Kind: db.KindPin, Marker: marker, Provenance: p})
	}
}

// releaseBranchWheel says whether a row read from pytorch/builder at a
// release branch (release/X.Y) describes the wheel build of a CUDA variant
// on plat: manywheel/build*.sh (the Linux wheel script, arch_list rows),
// common/install_cuda.sh (the Linux wheel build image) or
// windows/internal/cuda_install.bat (the Windows wheel build). The
// release branch building the variant is release evidence that the
// variant shipped (1.10.x cu113 and 1.11.0 cu115 were on
// download.pytorch.org though the getting-started page never listed them),
// so such a row makes the build when no higher source has it. Rows read at
// builder main or a nightly are not release evidence and only attach.
func releaseBranchWheel(r scraper.Record, plat string) bool {
	if !strings.Contains(r.Fields["source_commit"], "(release/") || !strings.HasPrefix(r.Fields["cuda_variant"], "cu") {
		return false
	}
	where := r.Fields["platform"]
	switch plat {
	case "linux":
		return strings.Contains(where, "linux-x86_64 wheel") || strings.Contains(where, "linux build image")
	case "windows":
		return strings.Contains(where, "windows build")
	}
	return false
}

// releaseBranchBuild is the pip wheel build a release-branch row names,
// with the release's Python range.
func releaseBranchBuild(v string, k db.BuildKey, py [2]string, p db.Provenance) db.Build {
	b := wheelBuild(v, k.Variant, k.Platform, false, p)
	b.PythonMin, b.PythonMax = py[0], py[1]
	if i := strings.Index(b.PythonMin, "/"); i >= 0 {
		b.PythonMin = b.PythonMin[:i]
	}
	return b
}
