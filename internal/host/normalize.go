package host

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
)

var nameSep = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[-_.]+`) })

// NormalizeName is the PEP 503 form of a Python distribution name.
func NormalizeName(name string) string {
	return nameSep().ReplaceAllString(strings.ToLower(strings.TrimSpace(name)), "-")
}

// LocalLabel returns the PEP 440 local label of v ("cu121" for
// "2.1.0+cu121"), or "".
func LocalLabel(v string) string {
	if i := strings.IndexByte(v, '+'); i >= 0 {
		return strings.ToLower(v[i+1:])
	}
	return ""
}

var cuVariant = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^cu(\d{2,3})$`) })

// CUDAFromVariant turns a wheel variant into a CUDA version: "cu121" →
// "12.1", "cu92" → "9.2". Other variants give "".
func CUDAFromVariant(variant string) string {
	m := cuVariant().FindStringSubmatch(variant)
	if m == nil {
		return ""
	}
	d := m[1]
	return d[:len(d)-1] + "." + d[len(d)-1:]
}

// VariantFromCUDA turns a CUDA version into a wheel variant: "12.1" →
// "cu121". Anything that is not major.minor gives "".
func VariantFromCUDA(cuda string) string {
	parts := strings.Split(cuda, ".")
	if len(parts) < 2 || !version.AllDigits(parts[0]) || !version.AllDigits(parts[1]) || parts[0] == "" || len(parts[1]) != 1 {
		return ""
	}
	return "cu" + parts[0] + parts[1]
}

// CUDNNFromInt decodes cuDNN's integer version: 8902 → "8.9.2" (major*1000
// up to cuDNN 8), 90100 → "9.1.0" (major*10000 from cuDNN 9).
func CUDNNFromInt(n int) string {
	var major, minor, patch int
	switch {
	case n >= 90000:
		major, minor, patch = n/10000, n%10000/100, n%100
	case n >= 1000:
		major, minor, patch = n/1000, n%1000/100, n%100
	default:
		return ""
	}
	return strconv.Itoa(major) + "." + strconv.Itoa(minor) + "." + strconv.Itoa(patch)
}

var dottedRun = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d+(?:\.\d+)*`) })

// NormalizeCUDNN reads a cuDNN version out of a wheel version
// ("9.1.0.70"), an integer ("8902"), a library name ("libcudnn.so.8.9.2")
// or a bare major ("8"). It returns "major.minor.patch" (or the major
// alone when that is all there is) and the major; ok is false when no
// version is in s.
func NormalizeCUDNN(s string) (version string, major int, ok bool) {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, ".so."); i >= 0 {
		s = s[i+4:]
	}
	m := dottedRun().FindString(s)
	if m == "" {
		return "", 0, false
	}
	parts := strings.Split(m, ".")
	if len(parts) == 1 && len(parts[0]) >= 4 {
		n, err := strconv.Atoi(parts[0])
		if err != nil {
			return "", 0, false
		}
		v := CUDNNFromInt(n)
		if v == "" {
			return "", 0, false
		}
		maj, _ := strconv.Atoi(strings.SplitN(v, ".", 2)[0])
		return v, maj, true
	}
	if len(parts) > 3 {
		parts = parts[:3]
	}
	maj, err := strconv.Atoi(parts[0])
	if err != nil || len(parts[0]) > 3 {
		return "", 0, false
	}
	for i := range parts {
		parts[i] = strings.TrimLeft(parts[i], "0")
		if parts[i] == "" {
			parts[i] = "0"
		}
	}
	return strings.Join(parts, "."), maj, true
}

// ToolkitVersion drops the date stamp some version.json files carry
// ("11.8.20220929" → "11.8") and returns the version and the raw text
// when it differs.
func ToolkitVersion(raw string) (ver, rawOut string) {
	raw = strings.TrimSpace(raw)
	parts := strings.Split(raw, ".")
	if len(parts) >= 3 && len(parts[2]) == 8 && version.AllDigits(parts[2]) && strings.HasPrefix(parts[2], "20") {
		return parts[0] + "." + parts[1], raw
	}
	return raw, ""
}

// TorchFrom builds the torch facts from a version and the CUDA it says it
// was built with (empty when unknown, "None" or "" for CPU builds when
// known to be CPU).
func TorchFrom(version, cuda, source string) *Torch {
	t := &Torch{Version: version, CUDA: cuda, Source: source}
	label := LocalLabel(version)
	switch {
	case strings.HasPrefix(label, "cu"):
		t.Variant = label
		if t.CUDA == "" {
			t.CUDA = CUDAFromVariant(label)
		}
	case label != "":
		t.Variant = label
		t.CUDA = ""
	case cuda != "":
		t.Variant = VariantFromCUDA(cuda)
	}
	return t
}

// Derive fills the framework facts of p from its Packages where nothing
// more precise was read, and fills NvidiaWheels. It is idempotent.
func (p *Python) Derive(source string) { p.DeriveWith(source, frameworks.All) }

// DeriveWith is Derive over a framework table: besides the typed facts,
// it indexes in Frameworks every framework of the table the environment
// installs.
func (p *Python) DeriveWith(source string, table frameworks.Table) {
	p.IndexFrameworks(source, table)
	for name, v := range p.Packages {
		if strings.HasPrefix(name, "nvidia-") {
			if p.NvidiaWheels == nil {
				p.NvidiaWheels = map[string]string{}
			}
			p.NvidiaWheels[name] = v
		}
	}
	if p.Torch == nil {
		if v, ok := p.Packages[frameworks.Torch]; ok {
			p.Torch = TorchFrom(v, "", source)
		}
	}
	if p.TensorFlow == nil {
		for _, name := range frameworks.Must(frameworks.TensorFlow).Packages {
			if v, ok := p.Packages[name]; ok {
				p.TensorFlow = &TensorFlow{Version: v, Package: name, Source: source}
				break
			}
		}
	}
	jaxv, hasJAX := p.Packages[frameworks.JAX]
	jaxlib, hasLib := p.Packages[frameworks.JAXLib]
	var plugins []string
	for name := range p.Packages {
		if strings.HasPrefix(name, "jax-cuda") || strings.HasPrefix(name, "jax-rocm") {
			plugins = append(plugins, name)
		}
	}
	if p.JAX == nil && (hasJAX || hasLib || len(plugins) > 0) {
		p.JAX = &JAX{}
	}
	if p.JAX != nil {
		if p.JAX.Version == "" {
			p.JAX.Version = jaxv
		}
		if p.JAX.Jaxlib == "" {
			p.JAX.Jaxlib = jaxlib
		}
		sort.Strings(plugins)
		for _, name := range plugins {
			if p.JAX.Plugins == nil {
				p.JAX.Plugins = map[string]string{}
			}
			p.JAX.Plugins[name] = p.Packages[name]
		}
	}
}

// IndexFrameworks fills p.Frameworks from the table: a framework is
// installed when one of its pip packages is in Packages (the main one
// first) or its conda package in CondaPackages. An entry already there
// (a report's labelled line) is kept. It is idempotent.
func (p *Python) IndexFrameworks(source string, table frameworks.Table) {
	for _, f := range table.Or() {
		if _, ok := p.Frameworks[f.Name]; ok {
			continue
		}
		in := &Installed{Name: f.Name, Source: source}
		for _, pkg := range append([]string{f.Name}, f.Packages...) {
			if v, ok := p.Packages[pkg]; ok {
				in.Package, in.Version = pkg, v
				break
			}
		}
		if in.Package == "" && f.CondaName != "" {
			if v, ok := p.CondaPackages[f.CondaName]; ok {
				in.Package, in.Version, in.Source = f.CondaName, v, "conda-meta"
			}
		}
		if in.Package == "" {
			continue
		}
		for _, c := range f.Companions {
			if v, ok := p.Packages[c]; ok {
				if in.Companions == nil {
					in.Companions = map[string]string{}
				}
				in.Companions[c] = v
			}
		}
		if p.Frameworks == nil {
			p.Frameworks = map[string]*Installed{}
		}
		p.Frameworks[f.Name] = in
	}
}
