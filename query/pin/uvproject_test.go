package pin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/querytest"
)

// uvProject is the part of pyproject.toml `cudb pin --format uv` writes,
// keyed as uv's documentation spells the settings (concepts/indexes.md,
// reference/settings.md). Decoding reports any key outside it.
type uvProject struct {
	Project struct {
		Name           string   `toml:"name"`
		Version        string   `toml:"version"`
		RequiresPython string   `toml:"requires-python"`
		Dependencies   []string `toml:"dependencies"`
	} `toml:"project"`
	Tool struct {
		UV struct {
			FindLinks []string `toml:"find-links"`
			Index     []struct {
				Name     string `toml:"name"`
				URL      string `toml:"url"`
				Explicit *bool  `toml:"explicit"`
			} `toml:"index"`
			Sources map[string]map[string]string `toml:"sources"`
		} `toml:"uv"`
	} `toml:"tool"`
}

var (
	// uvIndexNameRE: "Index names may only contain alphanumeric
	// characters, dashes, underscores, and periods" (uv's docs).
	uvIndexNameRE = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
	pep503Sep     = regexp.MustCompile(`[-_.]+`)
)

func normName(n string) string { return pep503Sep.ReplaceAllString(strings.ToLower(n), "-") }

// checkUVProject checks one pyproject.toml against PEP 621/508/440 and
// uv's index and source schema, offline.
func checkUVProject(content string) error {
	var p uvProject
	md, err := toml.Decode(content, &p)
	if err != nil {
		return fmt.Errorf("not TOML: %v", err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		return fmt.Errorf("keys outside the uv schema: %v", u)
	}
	if _, err := checkPEP508(p.Project.Name); err != nil || !projectNameRE().MatchString(p.Project.Name) {
		return fmt.Errorf("[project] name %q is not a distribution name", p.Project.Name)
	}
	if _, err := version.Parse(p.Project.Version); err != nil {
		return fmt.Errorf("[project] version %q is not PEP 440: %v", p.Project.Version, err)
	}
	if rp := p.Project.RequiresPython; rp != "" {
		if _, err := checkPEP508("python" + rp); err != nil {
			return fmt.Errorf("requires-python %q: %v", rp, err)
		}
	}
	if len(p.Project.Dependencies) == 0 {
		return fmt.Errorf("no dependencies")
	}
	deps := map[string]string{} // normalised name → requirement
	for _, d := range p.Project.Dependencies {
		name, err := checkPEP508(d)
		if err != nil {
			return err
		}
		deps[normName(name)] = d
	}
	for _, fl := range p.Tool.UV.FindLinks {
		if u, err := url.Parse(fl); err != nil || u.Scheme != "https" || u.Host == "" {
			return fmt.Errorf("find-links %q is not an https URL", fl)
		}
	}
	indexes := map[string]bool{}
	for _, ix := range p.Tool.UV.Index {
		if !uvIndexNameRE.MatchString(ix.Name) || indexes[ix.Name] {
			return fmt.Errorf("index name %q is empty, not allowed by uv, or repeated", ix.Name)
		}
		if u, err := url.Parse(ix.URL); err != nil || u.Scheme != "https" || u.Host == "" {
			return fmt.Errorf("index %s: url %q is not an https URL", ix.Name, ix.URL)
		}
		if ix.Explicit == nil || !*ix.Explicit {
			return fmt.Errorf("index %s is not explicit = true: uv would search it for every package", ix.Name)
		}
		indexes[ix.Name] = false
	}
	for pkg, src := range p.Tool.UV.Sources {
		if _, ok := deps[normName(pkg)]; !ok {
			return fmt.Errorf("[tool.uv.sources] %s is not a dependency", pkg)
		}
		if len(src) != 1 || src["index"] == "" {
			return fmt.Errorf("[tool.uv.sources] %s = %v: want { index = NAME }", pkg, src)
		}
		if _, ok := indexes[src["index"]]; !ok {
			return fmt.Errorf("[tool.uv.sources] %s names index %q, which [[tool.uv.index]] does not define", pkg, src["index"])
		}
		indexes[src["index"]] = true
	}
	for name, used := range indexes {
		if !used {
			return fmt.Errorf("explicit index %s serves no package: no [tool.uv.sources] entry names it", name)
		}
	}
	// PyPI serves no local versions (torch==2.1.0+cu118): such a pin needs
	// its package mapped to an index, or a find-links page.
	for name, d := range deps {
		if !strings.Contains(strings.SplitN(d, ";", 2)[0], "+") {
			continue
		}
		mapped := false
		for pkg := range p.Tool.UV.Sources {
			mapped = mapped || normName(pkg) == name
		}
		if !mapped && len(p.Tool.UV.FindLinks) == 0 {
			return fmt.Errorf("%s pins a local version but has no index source and there is no find-links", d)
		}
	}
	return nil
}

// uvFile is one rendered pyproject.toml and what it was rendered for.
type uvFile struct {
	Label   string `json:"label"`
	Content string `json:"content"`
}

// allUVFiles renders `cudb pin --format uv` for every stack of every
// release of every framework in the shipped data, on every platform
// (none given, linux, windows).
func allUVFiles(t *testing.T) []uvFile {
	t.Helper()
	ctx := context.Background()
	d := querytest.Embedded(t)
	var files []uvFile
	for _, f := range frameworks.All {
		versions, err := d.Versions(ctx, f.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range versions {
			for _, platform := range []string{"", "linux", "windows"} {
				req := query.ResolveRequest{Requirements: []string{f.Name + "==" + v}, Platform: platform, Pre: true}
				res, err := query.Resolve(ctx, d, req)
				if err != nil {
					continue // no pip build here: pin refuses too
				}
				for i := range res.Stacks {
					s := &res.Stacks[i]
					content, err := RenderStack(ctx, d, req, "uv", PinOptions{AllowUnknown: true}, s)
					if err != nil {
						t.Errorf("%s==%s %s %s: %v", f.Name, v, platform, s.Variant, err)
						continue
					}
					files = append(files, uvFile{Label: fmt.Sprintf("%s==%s variant %s cuda %s platform %q", f.Name, v, s.Variant, s.CUDA, platform), Content: content})
				}
			}
		}
	}
	return files
}

// TestUVProjectsAreValid: every pyproject.toml `cudb pin --format uv`
// can write from the shipped data (every framework, release, variant and
// platform) is a project `uv lock` can read: TOML, a [project] with a
// PEP 508 name and a PEP 440 version, PEP 508 dependencies, a PEP 440
// requires-python, and [[tool.uv.index]] / [tool.uv.sources] as uv
// documents them (named explicit indexes, each serving the packages its
// sources map to it; no local version left to PyPI). When Python with
// `packaging` (or pip's vendored copy) is present, Python's own parsers
// check every file again. uv itself and PyPI are not reachable here, so
// `uv lock` is not run.
func TestUVProjectsAreValid(t *testing.T) {
	files := allUVFiles(t)
	perFramework := map[string]int{}
	for _, f := range files {
		perFramework[strings.SplitN(f.Label, "==", 2)[0]]++
		if err := checkUVProject(f.Content); err != nil {
			t.Errorf("%s: %v\n%s", f.Label, err, f.Content)
		}
	}
	for _, fw := range frameworks.All {
		if perFramework[fw.Name] == 0 {
			t.Errorf("no uv project rendered for %s", fw.Name)
		}
	}
	t.Logf("%d pyproject.toml files checked in Go: %v", len(files), perFramework)
	checkWithPythonPackaging(t, files)
}

// pythonCheck parses each file with tomllib and Python's packaging
// (PEP 508 requirements, PEP 440 versions and specifiers, PEP 503 names).
const pythonCheck = `import json, sys
try:
    import tomllib
except ImportError:
    print(json.dumps({"skip": "no tomllib (Python < 3.11)"})); sys.exit(0)
try:
    from packaging.requirements import Requirement
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version
    from packaging.utils import canonicalize_name
    import packaging; where = "packaging " + packaging.__version__
except ImportError:
    try:
        from pip._vendor.packaging.requirements import Requirement
        from pip._vendor.packaging.specifiers import SpecifierSet
        from pip._vendor.packaging.version import Version
        from pip._vendor.packaging.utils import canonicalize_name
        from pip._vendor import packaging; where = "pip's vendored packaging " + packaging.__version__
    except ImportError:
        print(json.dumps({"skip": "neither packaging nor pip is importable"})); sys.exit(0)
errors = []
files = json.load(sys.stdin)
for f in files:
    try:
        doc = tomllib.loads(f["content"])
        p = doc["project"]
        assert canonicalize_name(p["name"]) and p["name"].strip() == p["name"], "name"
        Version(p["version"])
        if "requires-python" in p:
            SpecifierSet(p["requires-python"])
        names = set()
        for d in p["dependencies"]:
            r = Requirement(d)
            assert str(r.url or "") == "", "direct URL in " + d
            names.add(canonicalize_name(r.name))
        uv = doc.get("tool", {}).get("uv", {})
        idx = {i["name"] for i in uv.get("index", [])}
        for pkg, src in uv.get("sources", {}).items():
            assert canonicalize_name(pkg) in names, pkg + " is not a dependency"
            assert src["index"] in idx, pkg + " names an undefined index"
    except Exception as e:
        errors.append({"label": f["label"], "error": repr(e)})
print(json.dumps({"checked": len(files), "with": where, "errors": errors}))
`

type pythonReport struct {
	Skip    string `json:"skip"`
	Checked int    `json:"checked"`
	With    string `json:"with"`
	Errors  []struct {
		Label, Error string
	} `json:"errors"`
}

// pythons lists every python3 on PATH, in PATH order.
func pythons() []string {
	var out []string
	seen := map[string]bool{}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		p := filepath.Join(dir, "python3")
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			if r, err := filepath.EvalSymlinks(p); err == nil && !seen[r] {
				seen[r] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// checkWithPythonPackaging runs pythonCheck with the first python3 on
// PATH that has the packaging library (CI installs Debian's
// python3-packaging), else with pip's vendored copy, else skips.
func checkWithPythonPackaging(t *testing.T, files []uvFile) {
	in, _ := json.Marshal(files)
	var best *pythonReport
	for _, python := range pythons() {
		cmd := exec.Command(python, "-c", pythonCheck)
		cmd.Stdin = bytes.NewReader(in)
		out, err := cmd.Output()
		var rep pythonReport
		if err != nil || json.Unmarshal(out, &rep) != nil {
			t.Logf("%s: %v %s", python, err, out)
			continue
		}
		if rep.Skip != "" {
			t.Logf("%s: %s", python, rep.Skip)
			continue
		}
		if best == nil || strings.HasPrefix(rep.With, "packaging ") && !strings.HasPrefix(best.With, "packaging ") {
			best = &rep
		}
		if strings.HasPrefix(rep.With, "packaging ") {
			break
		}
	}
	if best == nil {
		t.Log("no python3 with packaging (or pip) on PATH: Python's check is skipped (the Go PEP 508 check above ran)")
		return
	}
	for _, e := range best.Errors {
		t.Errorf("%s: Python's %s: %s", e.Label, best.With, e.Error)
	}
	if best.Checked != len(files) {
		t.Errorf("Python checked %d files of %d", best.Checked, len(files))
	}
	t.Logf("%d files parsed by tomllib and %s", best.Checked, best.With)
}

// TestCheckUVProjectRefuses: the checker catches each kind of mistake.
func TestCheckUVProjectRefuses(t *testing.T) {
	good := `[project]
name = "torch-2.1.0-cu118"
version = "0.1.0"
requires-python = ">=3.8,<3.12"
dependencies = [
  "torch==2.1.0+cu118",
  "torchvision==0.16.0+cu118",
  'nvidia-nccl-cu11==2.18.1; sys_platform == "linux"',
]

[[tool.uv.index]]
name = "torch-cu118"
url = "https://download.pytorch.org/whl/cu118"
explicit = true

[tool.uv.sources]
torch = { index = "torch-cu118" }
torchvision = { index = "torch-cu118" }
`
	if err := checkUVProject(good); err != nil {
		t.Fatalf("refused the good file: %v", err)
	}
	for name, edit := range map[string][2]string{
		"no name":             {`name = "torch-2.1.0-cu118"` + "\n", ""},
		"bad version":         {`version = "0.1.0"`, `version = "one"`},
		"bad requires-python": {`">=3.8,<3.12"`, `">=3.8,<3.12,"`},
		"bad dependency":      {`"torch==2.1.0+cu118"`, `"torch=2.1.0+cu118"`},
		"not explicit":        {"explicit = true", "explicit = false"},
		"undefined index":     {`torch = { index = "torch-cu118" }`, `torch = { index = "torch-cu121" }`},
		"unused index":        {"[tool.uv.sources]\ntorch = { index = \"torch-cu118\" }\ntorchvision = { index = \"torch-cu118\" }\n", ""},
		"source not a dep":    {`torchvision = { index`, `torchaudio = { index`},
		"local version left":  {"torchvision = { index = \"torch-cu118\" }\n", ""},
		"unknown key":         {"explicit = true", "explicit = true\nprority = 1"},
		"bad index name":      {`name = "torch-cu118"`, `name = "torch cu118"`},
	} {
		bad := strings.Replace(good, edit[0], edit[1], 1)
		if bad == good {
			t.Fatalf("%s: the edit changed nothing", name)
		}
		if name == "bad index name" {
			bad = strings.ReplaceAll(bad, `index = "torch-cu118"`, `index = "torch cu118"`)
		}
		if err := checkUVProject(bad); err == nil {
			t.Errorf("%s: accepted\n%s", name, bad)
		}
	}
}

// TestPinRangeCompanionAndElidedExtras: a companion the data gives only
// as a range is written as that range (jax 0.5.2's plugin), not glued to
// "=="; a data pin that is not a requirement is left out with a note.
func TestPinRangeCompanionAndElidedExtras(t *testing.T) {
	ctx := context.Background()
	d := querytest.Embedded(t)
	for _, format := range []string{"requirements", "uv"} {
		res, err := Pins(ctx, d, query.ResolveRequest{Requirements: []string{"jax==0.5.2"}, Platform: "linux"}, format, PinOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Content, "jax-cuda12-plugin>=0.5.1,<=0.5.2") || strings.Contains(res.Content, "==>=") {
			t.Errorf("%s: the plugin's range is not written as a range:\n%s", format, res.Content)
		}
	}
	for s, ok := range map[string]bool{"cuda-toolkit": true, "cuda-toolkit[cublas, cudart]": true, "jax[cuda12]": true,
		"cuda-toolkit[...]": false, "cuda toolkit": false, "": false, "torch[": false, "-torch": false} {
		if validRequirementHead(s) != ok {
			t.Errorf("validRequirementHead(%q) = %v", s, !ok)
		}
	}
}
