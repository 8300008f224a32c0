package nvidia

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/version"
)

// SourceRef cites a source.
type SourceRef struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// Floors is the minimum driver for a CUDA toolkit: the toolkit's own
// (recommended) floor and the minor-version-compatibility floor of its major.
type Floors struct {
	CUDA                  string `json:"cuda"`
	LinuxMin              string `json:"linux_min"`
	WindowsMin            string `json:"windows_min"`
	MinorCompatLinuxMin   string `json:"minor_compat_linux_min"`
	MinorCompatWindowsMin string `json:"minor_compat_windows_min"`
	// Note says how the floors were chosen when the build names its
	// CUDA by the major alone.
	Note string `json:"note,omitempty"`
}

// For returns the floors that apply on os ("windows" or else Linux):
// the toolkit's own floor and its major's minor-version floor.
func (f *Floors) For(os string) (toolkit, compat string) {
	if os == "windows" {
		return f.WindowsMin, f.MinorCompatWindowsMin
	}
	return f.LinuxMin, f.MinorCompatLinuxMin
}

// FloorOS is whose driver floors a request's answer uses: the driver's
// OS when stated, windows for --platform windows, else linux.
func FloorOS(platform, driverOS string) string {
	if driverOS != "" {
		return driverOS
	}
	if platform == "windows" {
		return "windows"
	}
	return "linux"
}

// ParseDriver validates a driver version ("535.104.05", "470").
func ParseDriver(s string) (string, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimPrefix(strings.TrimPrefix(t, "r"), "R")
	if !version.IsDottedNumber(t) {
		return "", (&errs.Error{Code: errs.CodeUsage, Message: fmt.Sprintf("%s is not a driver version", errs.Quote(s))}).WithHint("a driver version such as 535.104.05 (see nvidia-smi)")
	}
	major, _ := strconv.Atoi(strings.Split(t, ".")[0])
	if major < DriverMajorMin || major > DriverMajorMax {
		return "", (&errs.Error{Code: errs.CodeUsage, Message: fmt.Sprintf("driver version %s is out of range", errs.Quote(s))}).WithHint("a driver version such as 535.104.05 (major between 100 and 999)")
	}
	return t, nil
}

// ParseSM accepts "7.5", "sm_75" or "75" and returns the compute
// capability "7.5". Values outside 1.0-19.9 are refused.
func ParseSM(s string) (string, error) {
	c, ok := version.ParseCC(s)
	if !ok {
		return "", (&errs.Error{Code: errs.CodeUsage, Message: fmt.Sprintf("%s is not a compute capability", errs.Quote(s))}).WithHint("a compute capability such as 8.6, sm_86 or 86")
	}
	if !version.CapabilityMajorInRange(c.Major) {
		return "", (&errs.Error{Code: errs.CodeUsage, Message: fmt.Sprintf("compute capability %s is out of range", errs.Quote(s))}).WithHint("a compute capability such as 8.6, sm_86 or 86")
	}
	return c.String(), nil
}

// ParseSMKnown is ParseSM restricted to capabilities the GPU table knows.
func ParseSMKnown(ctx context.Context, d *db.DB, s string) (string, error) {
	cc, err := ParseSM(s)
	if err != nil {
		return "", err
	}
	gs, err := d.GPUs(ctx)
	if err != nil {
		return "", err
	}
	if !slices.ContainsFunc(gs, func(g db.GPU) bool { return g.ComputeCapability == cc }) {
		return "", (&errs.Error{Code: errs.CodeUsage, Message: fmt.Sprintf("no known GPU has compute capability %s", cc)}).WithHint("cudb matrix gpu")
	}
	return cc, nil
}

// MinDriver is the driver floor of one CUDA release, OS and kind
// (toolkit or minor_compat).
func MinDriver(ctx context.Context, d *db.DB, cuda, os, kind string) (string, error) {
	r, _, err := FloorRow(ctx, d, cuda, os, kind)
	return r.MinDriver, err
}

// FloorRow is the cuda_driver row behind one floor, for citing it; ok is
// false when the data does not hold it.
func FloorRow(ctx context.Context, d *db.DB, cuda, os, kind string) (row db.CUDADriver, ok bool, err error) {
	rows, err := d.CUDADriversOf(ctx, cuda, false)
	if err != nil {
		return db.CUDADriver{}, false, err
	}
	for _, r := range rows {
		if r.CUDA == cuda && r.OS == os && r.Kind == kind {
			return r, true, nil
		}
	}
	return db.CUDADriver{}, false, nil
}

// FloorSources cites the rows behind the driver floors of a CUDA version
// on os: its toolkit floor and its major's minor-version floor. It is
// empty when the data holds neither.
func FloorSources(ctx context.Context, d *db.DB, cuda, os string) []SourceRef {
	var out []SourceRef
	if full, err := resolveToolkit(ctx, d, cuda); err == nil {
		if r, ok, _ := FloorRow(ctx, d, full, os, "toolkit"); ok {
			out = append(out, SourceRef{Name: r.Source, URL: r.URL})
		}
	}
	if r, ok, _ := FloorRow(ctx, d, version.MajorText(cuda), os, "minor_compat"); ok {
		out = append(out, SourceRef{Name: r.Source, URL: r.URL})
	}
	return DedupSources(out)
}

// resolveToolkit maps "12.1" to the GA row (12.1.0, or the row labelled
// GA, else the lowest patch) and "12.1.1" to itself.
func resolveToolkit(ctx context.Context, d *db.DB, cuda string) (string, error) {
	c := strings.TrimSpace(cuda)
	if !version.IsDottedNumber(c) || strings.Count(c, ".") == 0 {
		return "", (&errs.Error{Code: errs.CodeUsage, Message: fmt.Sprintf("%s is not a CUDA version", errs.Quote(cuda))}).WithHint("a CUDA version such as 12.1 or 12.1.1")
	}
	table, err := d.CUDADriversOf(ctx, c, true)
	if err != nil {
		return "", err
	}
	var all []string
	ga := ""
	for _, r := range table {
		v, label := r.CUDA, r.Label
		if r.Kind != "toolkit" || (v != c && !strings.HasPrefix(v, c+".")) {
			continue
		}
		if v == c {
			return v, nil
		}
		if strings.Count(v, ".") == 2 && strings.Count(c, ".") == 1 {
			all = append(all, v)
			if ga == "" && (v == c+".0" || strings.HasSuffix(label, " GA")) {
				ga = v
			}
		}
	}
	if ga != "" {
		return ga, nil
	}
	if len(all) > 0 {
		return all[0], nil
	}
	return "", (&errs.Error{Code: errs.CodeNotFound, Message: fmt.Sprintf("no driver floor known for CUDA %s", cuda)}).WithHint("cudb matrix cuda")
}

// DriverFloors returns the driver floors of a CUDA toolkit.
func DriverFloors(ctx context.Context, d *db.DB, cuda string) (Floors, error) {
	if bareMajor(cuda) {
		return majorFloors(ctx, d, strings.TrimSpace(cuda))
	}
	v, err := resolveToolkit(ctx, d, cuda)
	if err != nil {
		return Floors{}, err
	}
	f := Floors{CUDA: v}
	for _, p := range []struct {
		dst            *string
		cuda, os, kind string
	}{
		{&f.LinuxMin, v, "linux", "toolkit"}, {&f.WindowsMin, v, "windows", "toolkit"},
		{&f.MinorCompatLinuxMin, version.MajorText(v), "linux", "minor_compat"}, {&f.MinorCompatWindowsMin, version.MajorText(v), "windows", "minor_compat"},
	} {
		if *p.dst, err = MinDriver(ctx, d, p.cuda, p.os, p.kind); err != nil {
			return Floors{}, err
		}
	}
	return f, nil
}

// MaxCUDAForDriver returns the newest CUDA toolkit minor a (Linux)
// driver runs natively: the newest toolkit whose Linux floor it meets,
// else the branch's stated maximum.
func MaxCUDAForDriver(ctx context.Context, d *db.DB, driver string) (string, error) {
	return MaxCUDAForDriverOS(ctx, d, driver, "linux")
}

// MaxCUDAForDriverOS is MaxCUDAForDriver for the driver numbering of os
// ("linux" or "windows": Windows drivers carry their own numbers, 531.14
// where Linux has 530.30.02).
func MaxCUDAForDriverOS(ctx context.Context, d *db.DB, driver, os string) (string, error) {
	drv, err := ParseDriver(driver)
	if err != nil {
		return "", err
	}
	best, err := d.NewestToolkitFor(ctx, os, drv)
	if err != nil {
		return "", err
	}
	if best != "" {
		parts := strings.Split(best, ".")
		return parts[0] + "." + parts[1], nil
	}
	b, ok, err := d.DriverBranch(ctx, version.MajorText(drv))
	if err != nil {
		return "", err
	}
	if ok && b.MaxCUDA != "" {
		return b.MaxCUDA, nil
	}
	return "", (&errs.Error{Code: errs.CodeNotFound, Message: fmt.Sprintf("no CUDA toolkit is known to run on driver %s", drv)}).WithHint("cudb matrix driver")
}

// CheckDriver says whether a (Linux) driver runs CUDA cuda: OK at or
// above the minor-version-compatibility floor of the CUDA major (with a
// note when below the toolkit's own floor), refused below it, and refused
// when the driver's newest CUDA is of an older major.
func CheckDriver(ctx context.Context, d *db.DB, driver, cuda string) (DriverVerdict, error) {
	return CheckDriverOS(ctx, d, driver, cuda, "linux")
}

// CheckDriverOS is CheckDriver against the floors of os ("linux" or
// "windows").
func CheckDriverOS(ctx context.Context, d *db.DB, driver, cuda, os string) (DriverVerdict, error) {
	drv, err := ParseDriver(driver)
	if err != nil {
		return DriverVerdict{}, err
	}
	if bareMajor(cuda) {
		return checkMajor(ctx, d, drv, strings.TrimSpace(cuda), os)
	}
	fl, err := DriverFloors(ctx, d, cuda)
	if err != nil {
		return DriverVerdict{}, err
	}
	toolkit, compat, osName := fl.LinuxMin, fl.MinorCompatLinuxMin, "Linux"
	if os == "windows" {
		toolkit, compat, osName = fl.WindowsMin, fl.MinorCompatWindowsMin, "Windows"
	}
	v := DriverVerdict{Driver: drv, CUDA: fl.CUDA}
	if toolkit == "" && compat == "" {
		// No floor of this toolkit on this OS (NVIDIA prints N/A for
		// every CUDA 13.x Windows cell). A driver below the floor of
		// some toolkit the data does know is older than this toolkit
		// needs (floors rise with toolkits): refused below. A driver at
		// or above every known floor cannot be judged: unknown, with the
		// reason the data gives.
		mine, err := d.NewestToolkitFor(ctx, os, drv)
		if err != nil {
			return DriverVerdict{}, err
		}
		known, err := d.NewestToolkitFor(ctx, os, "99999")
		if err != nil {
			return DriverVerdict{}, err
		}
		if known == "" || mine == known {
			v.Unknown = fmt.Sprintf("no %s driver floor known for CUDA %s", osName, fl.CUDA)
			if why, _, err := d.Attribute(ctx, "cuda", fl.CUDA, strings.ToLower(osName)+"_min_driver"); err == nil && why != "" {
				v.Unknown += ": " + why
			} else if why, _, err := d.Attribute(ctx, "cuda", fl.CUDA, "min_driver"); err == nil && why != "" {
				v.Unknown += ": " + why
			}
			return v, nil
		}
	}
	if mx, err := MaxCUDAForDriverOS(ctx, d, drv, os); err == nil {
		v.MaxCUDA = mx
		if a, b := version.MajorText(mx), version.MajorText(fl.CUDA); version.CompareDottedText(a, b) < 0 {
			v.Reason = fmt.Sprintf("driver %s supports CUDA up to %s; CUDA %s needs a CUDA %s-era driver", drv, mx, fl.CUDA, b)
			if compat != "" {
				v.Reason += fmt.Sprintf(" (>= %s)", compat)
			} else if toolkit != "" {
				v.Reason += fmt.Sprintf(" (>= %s)", toolkit)
			}
			v.Floor = compat
			return v, nil
		}
	}
	// The installed CUDA release's own floor is the minimum; the
	// minor-version floor matters only for a driver below it (a runtime
	// newer than the driver supports), and only where it is lower.
	floor := toolkit
	if compat != "" && (floor == "" || version.CompareDottedText(compat, floor) < 0) {
		floor = compat
	}
	v.Floor = floor
	switch {
	case floor == "":
		return v, (&errs.Error{Code: errs.CodeNotFound, Message: fmt.Sprintf("no %s driver floor known for CUDA %s", osName, fl.CUDA)}).WithHint("cudb matrix cuda")
	case toolkit != "" && version.CompareDottedText(drv, toolkit) >= 0:
		v.OK, v.Via = true, "toolkit"
	case version.CompareDottedText(drv, floor) < 0:
		v.Reason = fmt.Sprintf("driver %s is below the minimum %s for CUDA %s", drv, floor, fl.CUDA)
	default:
		v.OK, v.Via = true, "minor_compat"
		v.Note = fmt.Sprintf("runs via minor-version compatibility; recommended >= %s", toolkit)
	}
	return v, nil
}

// GPUSupport says how a build with archList ("sm_50 sm_60 compute_70")
// runs on compute capability cc: "sass" (exact cubin), "sass_compatible"
// (a cubin of the same major at or below cc: sm_86 runs sm_80 code, never
// the reverse), "ptx_jit" (PTX at or below cc), or "none". Arch-specific
// "a"/"f" cubins (sm_90a) run only on that exact CC.
func GPUSupport(cc string, archList string) (support string, detail string) {
	c, err := ParseSM(cc)
	if err != nil {
		return "none", err.Error()
	}
	want, _ := version.ParseCC(c)
	ma, mi := want.Major, want.Minor
	var compat, ptx string
	compatN, ptxN := -1, -1
	for _, a := range strings.Fields(archList) {
		a = strings.ToLower(a)
		isPTX := strings.HasPrefix(a, "compute_")
		if strings.Contains(a, ".") {
			continue // arch lists name sm_XY, never X.Y
		}
		have, ok := version.ParseCC(a)
		if !ok {
			continue
		}
		am, an := have.Major, have.Minor
		specific := strings.HasSuffix(a, "a") || strings.HasSuffix(a, "f")
		if !isPTX {
			if am == ma && an == mi {
				return "sass", fmt.Sprintf("%s matches compute capability %s", a, c)
			}
			if !specific && am == ma && an < mi && an > compatN {
				compat, compatN = a, an
			}
			continue
		}
		if specific {
			continue
		}
		if n := am*10 + an; n <= ma*10+mi && n > ptxN {
			ptx, ptxN = a, n
		}
	}
	if compat != "" {
		return "sass_compatible", fmt.Sprintf("%s code runs on compute capability %s (same major, lower minor)", compat, c)
	}
	if ptx != "" {
		return "ptx_jit", fmt.Sprintf("%s PTX is JIT-compiled for compute capability %s at first load", ptx, c)
	}
	return "none", fmt.Sprintf("no sm_%d%d-compatible code and no PTX at or below %s in %q", ma, mi, c, archList)
}

// GPU is a GPU row.
type GPU = db.GPU

var brandPrefixes = []string{"nvidia", "tesla", "geforce"}

// normGPU folds case, spaces, dashes and underscores and drops brand
// prefixes, so "tesla-t4", "NVIDIA T4" and "T4" meet.
func normGPU(s string) string {
	s = strings.ToLower(s)
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' || r == '_' || r == '\t' {
			return -1
		}
		return r
	}, s)
	for changed := true; changed; {
		changed = false
		for _, p := range brandPrefixes {
			if strings.HasPrefix(s, p) && len(s) > len(p) {
				s, changed = s[len(p):], true
			}
		}
	}
	return s
}

// appendNormGPU appends normGPU(s) to buf without allocating when s is
// ASCII; ok is false otherwise. A lookup compares the wanted name with
// every GPU and alias of the table, up to three times for an nvidia-smi
// name, and allocating two strings for each was a seventh of a cold
// `verify --from`.
func appendNormGPU(buf []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			return buf, false
		case c == ' ' || c == '-' || c == '_' || c == '\t':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	for changed := true; changed; {
		changed = false
		for _, p := range brandPrefixes {
			if len(buf) > len(p) && string(buf[:len(p)]) == p {
				buf, changed = buf[len(p):], true
			}
		}
	}
	return buf, true
}

// LookupGPU finds a GPU by name or alias, forgiving case, spaces, dashes
// and brand prefixes.
func LookupGPU(ctx context.Context, d *db.DB, name string) (GPU, error) {
	want := normGPU(strings.TrimSpace(name))
	if want == "" {
		return GPU{}, (&errs.Error{Code: errs.CodeUsage, Message: "empty GPU name"}).WithHint("a GPU name such as \"RTX 4090\" or \"T4\"")
	}
	gs, err := d.GPUNames(ctx)
	if err != nil {
		return GPU{}, err
	}
	hits := matchGPU(gs, want)
	// nvidia-smi names carry the board and memory ("NVIDIA A100-SXM4-80GB",
	// "NVIDIA H100 80GB HBM3"): drop those known trailing words, and only
	// those. Any other extra word (Ti, Super, Ada, Max-Q) names another
	// model and is never dropped to fall back on a shorter one.
	if short, ok := stripBoardSuffix(name); len(hits) == 0 && ok {
		if n := normGPU(short); n != "" && !brandOnly(n) {
			hits = matchGPU(gs, n)
		}
	}
	if len(hits) == 1 {
		g, ok, err := d.GPU(ctx, hits[0].Name)
		if err == nil && !ok {
			err = fmt.Errorf("gpu %s vanished from the database", hits[0].Name)
		}
		return g, err
	}
	if len(hits) > 1 {
		names := gpuNames(hits)
		return GPU{}, (&errs.Error{Code: errs.CodeUsage, Message: fmt.Sprintf("%s names several GPUs: %s", errs.Quote(name), strings.Join(names, ", ")), Detail: names}).WithHint("cudb matrix gpu")
	}
	var close []string
	for _, g := range gs {
		n := normGPU(g.Name)
		if strings.Contains(n, want) || strings.Contains(want, n) {
			close = append(close, g.Name)
		}
	}
	if len(close) == 0 {
		close = nearGPUNames(gs, want)
	} else {
		sort.Strings(close)
	}
	if len(close) > 8 {
		close = close[:8]
	}
	e := &errs.Error{Code: errs.CodeNotFound, Message: fmt.Sprintf("unknown GPU %s", errs.Quote(name)), Detail: close}
	if len(close) > 0 {
		e.Message += "; did you mean: " + strings.Join(close, ", ")
	}
	return GPU{}, e.WithHint("give its compute capability instead (--sm 8.9; nvidia-smi --query-gpu=compute_cap --format=csv prints it), or search the models: cudb matrix gpu --name %q", searchTerm(name))
}

// stripBoardSuffix drops the trailing words nvidia-smi adds to a model
// name for its board, not its chip: memory size ("80GB"), memory type
// ("HBM3"), form factor ("SXM4", "PCIe", "NVL") and "Laptop GPU" (printed
// from the GeForce RTX 30 series on, whose laptop parts share the
// architecture and compute capability of the desktop model of the same
// name). ok is false when the name ends in none of them.
func stripBoardSuffix(name string) (string, bool) {
	words := strings.FieldsFunc(strings.TrimSpace(name), func(r rune) bool { return r == ' ' || r == '-' || r == '_' })
	n := len(words)
	for n > 1 {
		w := strings.ToLower(words[n-1])
		switch {
		case boardWord(w):
			n--
		case w == "gpu" && n > 2 && strings.EqualFold(words[n-2], "laptop"):
			n -= 2
		default:
			return strings.Join(words[:n], " "), n < len(words)
		}
	}
	return strings.Join(words[:n], " "), n < len(words)
}

// boardWord is a lower-case word of a board suffix: 80gb, hbm3e, sxm4,
// pcie, nvl.
func boardWord(w string) bool {
	switch w {
	case "pcie", "nvl", "sxm", "hbm", "hbm2", "hbm2e", "hbm3", "hbm3e":
		return true
	}
	if rest, ok := strings.CutPrefix(w, "sxm"); ok {
		return rest != "" && version.AllDigits(rest)
	}
	if rest, ok := strings.CutSuffix(w, "gb"); ok {
		return rest != "" && version.AllDigits(rest)
	}
	return false
}

func matchGPU(gs []GPU, want string) []GPU {
	var hits []GPU
	var buf [64]byte
	is := func(name string) bool {
		if b, ok := appendNormGPU(buf[:0], name); ok {
			return string(b) == want
		}
		return normGPU(name) == want
	}
	for _, g := range gs {
		if is(g.Name) {
			hits = append(hits, g)
			continue
		}
		for _, a := range g.Aliases {
			if is(a) {
				hits = append(hits, g)
				break
			}
		}
	}
	return hits
}

// brandOnly is a name that is nothing but a brand ("nvidia", "tesla").
func brandOnly(norm string) bool {
	for _, p := range brandPrefixes {
		if norm == p {
			return true
		}
	}
	return false
}

func gpuNames(gs []GPU) []string {
	var out []string
	for _, g := range gs {
		out = append(out, g.Name)
	}
	return out
}

// DedupSources drops repeated citations and orders them by name.
func DedupSources(in []SourceRef) []SourceRef {
	var out []SourceRef
	for _, s := range in {
		dup := false
		for _, o := range out {
			if o == s {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
