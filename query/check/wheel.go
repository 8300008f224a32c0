package check

import (
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/cudb/cudb/internal/version"
)

// Wheel is what a wheel's file name states (PEP 427:
// {name}-{version}(-{build})?-{python}-{abi}-{platform}.whl).
type Wheel struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Python   string `json:"python"`
	ABI      string `json:"abi"`
	Platform string `json:"platform"`
}

// parseWheelName reads a wheel file name, percent-escapes decoded
// (torch-2.7.0%2Bcu128-… is torch 2.7.0+cu128).
func parseWheelName(name string) (Wheel, bool) {
	if n, err := url.PathUnescape(name); err == nil {
		name = n
	}
	if !strings.HasSuffix(name, ".whl") {
		return Wheel{}, false
	}
	f := strings.Split(strings.TrimSuffix(name, ".whl"), "-")
	if len(f) != 5 && len(f) != 6 {
		return Wheel{}, false
	}
	w := Wheel{Name: version.NormalizeName(f[0]), Version: f[1], Python: f[len(f)-3], ABI: f[len(f)-2], Platform: f[len(f)-1]}
	if _, err := version.Parse(w.Version); err != nil || w.Name == "" {
		return Wheel{}, false
	}
	return w, true
}

// wheelRequirement turns a direct wheel reference (a URL or a path
// ending in .whl, with or without "name @ ") into the exact requirement
// it installs; the URL's directory is its index (…/whl/cu128).
func wheelRequirement(s string) (Requirement, bool) {
	ref := strings.TrimSpace(s)
	if _, after, ok := strings.Cut(ref, " @ "); ok {
		ref = strings.TrimSpace(after)
	} else if i := strings.Index(ref, "@"); i > 0 && !strings.Contains(ref[:i], "/") {
		ref = strings.TrimSpace(ref[i+1:])
	}
	ref, _, _ = strings.Cut(ref, ";")
	ref, _, _ = strings.Cut(strings.TrimSpace(ref), "#")
	w, ok := parseWheelName(path.Base(ref))
	if !ok {
		return Requirement{}, false
	}
	r := Requirement{Name: w.Name, Spec: "==" + w.Version, Wheel: &w}
	if strings.Contains(ref, "://") {
		r.IndexURL = strings.TrimSuffix(ref, "/"+path.Base(ref))
	} else {
		r.FindLinks = []string{path.Dir(ref)}
	}
	return r, true
}

// localPath reports a requirement word that installs a project from a
// directory (".", "./pkg", "/src/pkg", ".[gpu]", "file:///src"), with
// its extras.
func localPath(s string) (dir string, extras []string, ok bool) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "file://")
	if t == "" || strings.HasSuffix(t, ".whl") || strings.HasSuffix(t, ".tar.gz") || strings.HasSuffix(t, ".zip") {
		return "", nil, false
	}
	if !strings.HasPrefix(t, ".") && !strings.HasPrefix(t, "/") && !strings.HasPrefix(t, "~") {
		return "", nil, false
	}
	if i := strings.IndexByte(t, '['); i >= 0 && strings.HasSuffix(t, "]") {
		for _, x := range strings.Split(t[i+1:len(t)-1], ",") {
			if x = strings.TrimSpace(x); x != "" {
				extras = append(extras, x)
			}
		}
		t = t[:i]
	}
	return strings.TrimSuffix(t, "/"), extras, true
}

// wheelFits judges a direct wheel against the environment pip installs
// it into: pip refuses a wheel whose Python tag is another CPython
// ("is not a supported wheel on this platform") or whose platform tag is
// not the target's. It returns what does not fit, "" when it fits or
// cannot be told.
func wheelFits(w *Wheel, py, platform string) string {
	if w == nil {
		return ""
	}
	if tag, ok := strings.CutPrefix(w.Python, "cp"); ok && len(tag) >= 2 && pyMinor(py) != "" {
		if want := tag[:1] + "." + tag[1:]; want != pyMinor(py) {
			return fmt.Sprintf("the wheel is built for Python %s (%s) and the environment runs Python %s", want, w.Python, pyMinor(py))
		}
	}
	p := strings.ToLower(w.Platform)
	linux := strings.Contains(p, "linux")
	switch {
	case p == "any":
	case platform == "linux" && (!linux || strings.Contains(p, "aarch64")),
		platform == "linux-aarch64" && (!linux || !strings.Contains(p, "aarch64")):
		return fmt.Sprintf("the wheel is built for %s and the environment is %s", w.Platform, platform)
	}
	return ""
}
