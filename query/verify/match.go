package verify

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/findings"
)

// frameworks lists installed framework builds, matched to the database.
func (v *verifier) frameworks(ctx context.Context) ([]*framework, error) {
	var out []*framework
	table := v.opts.Frameworks.Or()
	for i := range v.f.Pythons {
		py := &v.f.Pythons[i]
		// Facts built by hand (check's, a test's) may not have indexed
		// their packages yet; indexing keeps what a reader indexed.
		py.IndexFrameworks(py.Source, table)
		// One walk over the framework table, in its order: a framework
		// with a reader of its own build facts (torch's version.py,
		// TensorFlow's build_info, JAX's CUDA plugins) is matched by it,
		// any other by its installed package's release.
		for _, f := range table {
			match := (*verifier).matchInstalled
			if m, ok := buildReaders[f.Name]; ok {
				match = m
			}
			fw, err := match(v, ctx, py, f)
			if err != nil {
				return nil, err
			}
			if fw != nil {
				out = append(out, fw)
			}
		}
	}
	return out, nil
}

// buildReaders match the frameworks whose environment states more than a
// version: the build's CUDA and variant, read by their own readers.
var buildReaders = map[string]func(v *verifier, ctx context.Context, py *host.Python, f frameworks.Framework) (*framework, error){
	frameworks.Torch: func(v *verifier, ctx context.Context, py *host.Python, _ frameworks.Framework) (*framework, error) {
		if t := py.Torch; t != nil && t.Version != "" {
			return v.matchTorch(ctx, py, t)
		}
		return nil, nil
	},
	frameworks.TensorFlow: func(v *verifier, ctx context.Context, py *host.Python, _ frameworks.Framework) (*framework, error) {
		if t := py.TensorFlow; t != nil && t.Version != "" {
			return v.matchTF(ctx, py, t)
		}
		return nil, nil
	},
	frameworks.JAX: (*verifier).matchJAX,
}

// matchJAX matches JAX by its CUDA plugin, which names the build; pjrt
// comes with it. The names are walked in a fixed order (plugin first): a
// map's order would change the finding's words from run to run.
func (v *verifier) matchJAX(ctx context.Context, py *host.Python, _ frameworks.Framework) (*framework, error) {
	j := py.JAX
	if j == nil {
		return nil, nil
	}
	names := make([]string, 0, len(j.Plugins))
	for name := range j.Plugins {
		names = append(names, name)
	}
	sort.Slice(names, func(a, b int) bool {
		pa, pb := strings.HasSuffix(names[a], "-plugin"), strings.HasSuffix(names[b], "-plugin")
		if pa != pb {
			return pa
		}
		return names[a] < names[b]
	})
	for _, name := range names {
		ver := j.Plugins[name]
		if m := cudaPluginRe().FindStringSubmatch(name); m != nil {
			fw := &framework{name: frameworks.JAX, label: "jax " + orUnknown(j.Version) + " (" + name + " " + ver + ")",
				version: j.Version, cuda: m[1], py: py}
			// The plugin's CUDA major names the build (cuda12).
			bs, err := v.d.Builds(ctx, frameworks.JAX, func(s string) bool { return s == j.Version })
			if err != nil {
				return nil, err
			}
			if len(bs) == 0 && j.Version != "" {
				if bs, err = v.inferBuilds(ctx, fw); err != nil {
					return nil, err
				}
				v.unknown(ctx, fw, frameworks.JAX)
			}
			fw.build = pickBuild(bs, "cuda"+m[1], false)
			return fw, nil
		}
	}
	return nil, nil
}

// matchInstalled matches a framework by the package the table says
// installs it (host.Python's Frameworks): its release's builds, the
// Linux one of the newest CUDA (what pip installs by default where a
// framework publishes one package per CUDA major, as ONNX Runtime does).
// A release the data does not hold is unknown, said so.
func (v *verifier) matchInstalled(ctx context.Context, py *host.Python, f frameworks.Framework) (*framework, error) {
	in := py.Frameworks[f.Name]
	if in == nil || in.Version == "" {
		return nil, nil
	}
	ver := in.Version
	fw := &framework{name: f.Name, label: f.Name + " " + ver, version: ver, py: py}
	bs, err := v.d.Builds(ctx, f.Name, func(s string) bool { return s == ver })
	if err != nil {
		return nil, err
	}
	if len(bs) == 0 {
		if bs, err = v.inferBuilds(ctx, fw); err != nil {
			return nil, err
		}
	}
	for _, b := range bs {
		if b.Platform == "" || b.Platform == "linux" {
			if fw.build == nil || version.CompareDottedText(b.CUDA, fw.build.CUDA) > 0 {
				fw.build = b
			}
		}
	}
	if fw.build != nil {
		fw.cuda = version.MajorText(fw.build.CUDA)
	}
	if fw.build == nil || fw.inferred != "" {
		v.unknown(ctx, fw, f.Name)
	}
	return fw, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

// unknownVersion is the answer for an installed version that does not
// parse: the framework is kept, unknown (a warning), never an error.
func (v *verifier) unknownVersion(ctx context.Context, fw *framework, raw, component string) (*framework, error) {
	fw.version = raw
	v.unknown(ctx, fw, component)
	return fw, nil
}

func (v *verifier) unknown(ctx context.Context, fw *framework, component string) {
	table := component
	if f, ok := frameworks.Get(component); ok && f.Matrix != "" {
		table = f.Matrix
	}
	skipped := "its CUDA, cuDNN and GPU checks are skipped"
	if fw.inferred != "" {
		skipped = "its checks are " + query.InferredText(component, fw.version, fw.inferred)
	}
	// A release a lead names is known, its facts pending: said so, as
	// resolve says it, rather than "not in the database".
	v.add(findings.Finding{Category: findings.CatUnknownVersion, Severity: findings.SevWarning,
		Message:  query.ReleaseUnknownText(ctx, v.d, component, fw.version, fw.label, skipped),
		Evidence: []string{fmt.Sprintf("%s: %s (%s)", component, fw.version, envName(fw.py))},
		Fix:      fmt.Sprintf("cudb refresh (update the data), or cudb matrix %s for the known releases", table)})
}

func envName(py *host.Python) string {
	if py == nil {
		return "?"
	}
	if py.Prefix != "" {
		return py.Prefix
	}
	return py.Kind
}

// pickBuild chooses the Linux (or all-platform) pip build of a variant.
func pickBuild(bs []*db.BuildRow, variant string, wantDefault bool) *db.BuildRow {
	var best *db.BuildRow
	for _, b := range bs {
		if b.Channel != "" || (b.Platform != "" && b.Platform != "linux") {
			continue
		}
		if wantDefault && !b.IsDefault || !wantDefault && b.Variant != variant {
			continue
		}
		if best == nil {
			best = b
		}
	}
	return best
}

func (v *verifier) matchTorch(ctx context.Context, py *host.Python, t *host.Torch) (*framework, error) {
	fw := &framework{name: frameworks.Torch, label: "torch " + t.Version, cuda: t.CUDA, py: py}
	pv, err := version.Parse(t.Version)
	if err != nil {
		return v.unknownVersion(ctx, fw, t.Version, frameworks.Torch)
	}
	fw.version = pv.Public()
	variant := t.Variant
	if variant == "" && pv.Local() != "" {
		variant = pv.Local()
	}
	judged, bs, read, err := v.releaseBuilds(ctx, frameworks.Torch, fw.version)
	if err != nil {
		return nil, err
	}
	if read != "" {
		fw.version = judged
		fw.label = strings.Replace(fw.label, t.Version, judged, 1)
		v.shorthandNote(read)
	}
	if len(bs) == 0 {
		if bs, err = v.inferBuilds(ctx, fw); err != nil {
			return nil, err
		}
		v.unknown(ctx, fw, frameworks.Torch)
		if len(bs) == 0 {
			return fw, nil
		}
	}
	if variant != "" {
		fw.build = pickBuild(bs, variant, false)
	} else if t.CUDA != "" || t.Source != "version_py" {
		// A PyPI wheel without a local label is the default variant.
		fw.build = pickBuild(bs, "", true)
	}
	if fw.build == nil && variant == "" && t.CUDA == "" {
		fw.build = pickBuild(bs, "cpu", false)
	}
	if fw.build == nil {
		v.add(findings.Finding{Category: findings.CatUnknownVersion, Severity: findings.SevWarning,
			Message:  fmt.Sprintf("torch %s has no %s build in the database: its CUDA, cuDNN and GPU checks are skipped", fw.version, orUnknown(variant)),
			Evidence: []string{"torch: " + t.Version},
			Fix:      fmt.Sprintf("cudb matrix torch (the variants of %s that exist)", fw.version)})
		return fw, nil
	}
	if fw.cuda == "" {
		fw.cuda = fw.build.CUDA
	}
	for _, b := range bs {
		if b.Channel == "" && b.Variant == fw.build.Variant {
			fw.variant = append(fw.variant, b)
		}
	}
	return fw, nil
}

func (v *verifier) matchTF(ctx context.Context, py *host.Python, t *host.TensorFlow) (*framework, error) {
	fw := &framework{name: frameworks.TensorFlow, label: "tensorflow " + t.Version, cuda: t.CUDA, py: py}
	pv, err := version.Parse(t.Version)
	if err != nil {
		return v.unknownVersion(ctx, fw, t.Version, frameworks.TensorFlow)
	}
	fw.version = pv.Public()
	judged, bs, read, err := v.releaseBuilds(ctx, frameworks.TensorFlow, fw.version)
	if err != nil {
		return nil, err
	}
	if read != "" {
		fw.version = judged
		fw.label = frameworks.TensorFlow + " " + judged
		v.shorthandNote(read)
	}
	if len(bs) == 0 {
		if bs, err = v.inferBuilds(ctx, fw); err != nil {
			return nil, err
		}
		v.unknown(ctx, fw, frameworks.TensorFlow)
		if len(bs) == 0 {
			return fw, nil
		}
	}
	gpu := t.IsGPU == nil || *t.IsGPU || t.CUDA != ""
	for _, b := range bs {
		if b.Channel != "" || (b.Platform != "" && b.Platform != "linux") {
			continue
		}
		if gpu == (b.CUDA != "") {
			fw.build = b
			break
		}
	}
	if fw.build != nil && fw.cuda == "" {
		fw.cuda = fw.build.CUDA
	}
	return fw, nil
}
