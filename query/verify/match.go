package verify

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
)

// frameworks lists installed framework builds, matched to the database.
func (v *verifier) frameworks() ([]*framework, error) {
	var out []*framework
	for i := range v.f.Pythons {
		py := &v.f.Pythons[i]
		if t := py.Torch; t != nil && t.Version != "" {
			fw, err := v.matchTorch(py, t)
			if err != nil {
				return nil, err
			}
			out = append(out, fw)
		}
		if t := py.TensorFlow; t != nil && t.Version != "" {
			fw, err := v.matchTF(py, t)
			if err != nil {
				return nil, err
			}
			out = append(out, fw)
		}
		if j := py.JAX; j != nil {
			// The CUDA plugin names the build; pjrt comes with it. Walk
			// the names in a fixed order (plugin first): a map's order
			// would change the finding's words from run to run.
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
					bs, err := v.d.Builds(v.ctx, frameworks.JAX, func(s string) bool { return s == j.Version })
					if err != nil {
						return nil, err
					}
					if len(bs) == 0 && j.Version != "" {
						if bs, err = v.inferBuilds(fw); err != nil {
							return nil, err
						}
						v.unknown(fw, frameworks.JAX)
					}
					fw.build = pickBuild(bs, "cuda"+m[1], false)
					out = append(out, fw)
					break
				}
			}
		}
		if ver, ok := py.Packages[frameworks.ONNXRuntime]; ok {
			fw := &framework{name: frameworks.ONNXRuntime, label: "onnxruntime-gpu " + ver, version: ver, py: py}
			bs, err := v.d.Builds(v.ctx, frameworks.ONNXRuntime, func(s string) bool { return s == ver })
			if err != nil {
				return nil, err
			}
			if len(bs) == 0 {
				if bs, err = v.inferBuilds(fw); err != nil {
					return nil, err
				}
			}
			// ORT publishes one package per CUDA major; the newest
			// major is what pip installs by default.
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
			out = append(out, fw)
			if fw.build == nil || fw.inferred != "" {
				v.unknown(fw, frameworks.ONNXRuntime)
			}
		}
	}
	return out, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

func (v *verifier) unknown(fw *framework, component string) {
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
	v.add(Finding{Category: CatUnknownVersion, Severity: SevWarning,
		Message:  query.ReleaseUnknownText(v.ctx, v.d, component, fw.version, fw.label, skipped),
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

func (v *verifier) matchTorch(py *host.Python, t *host.Torch) (*framework, error) {
	fw := &framework{name: frameworks.Torch, label: "torch " + t.Version, cuda: t.CUDA, py: py}
	pv, err := version.Parse(t.Version)
	if err != nil {
		fw.version = t.Version
		v.unknown(fw, frameworks.Torch)
		return fw, nil
	}
	fw.version = pv.Public()
	variant := t.Variant
	if variant == "" && pv.Local() != "" {
		variant = pv.Local()
	}
	judged, bs, read, err := v.releaseBuilds(v.ctx, frameworks.Torch, fw.version)
	if err != nil {
		return nil, err
	}
	if read != "" {
		fw.version = judged
		fw.label = strings.Replace(fw.label, t.Version, judged, 1)
		v.shorthandNote(read)
	}
	if len(bs) == 0 {
		if bs, err = v.inferBuilds(fw); err != nil {
			return nil, err
		}
		v.unknown(fw, frameworks.Torch)
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
		v.add(Finding{Category: CatUnknownVersion, Severity: SevWarning,
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

func (v *verifier) matchTF(py *host.Python, t *host.TensorFlow) (*framework, error) {
	fw := &framework{name: frameworks.TensorFlow, label: "tensorflow " + t.Version, cuda: t.CUDA, py: py}
	pv, err := version.Parse(t.Version)
	if err != nil {
		fw.version = t.Version
		v.unknown(fw, frameworks.TensorFlow)
		return fw, nil
	}
	fw.version = pv.Public()
	judged, bs, read, err := v.releaseBuilds(v.ctx, frameworks.TensorFlow, fw.version)
	if err != nil {
		return nil, err
	}
	if read != "" {
		fw.version = judged
		fw.label = frameworks.TensorFlow + " " + judged
		v.shorthandNote(read)
	}
	if len(bs) == 0 {
		if bs, err = v.inferBuilds(fw); err != nil {
			return nil, err
		}
		v.unknown(fw, frameworks.TensorFlow)
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
