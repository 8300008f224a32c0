package probe

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/internal/host/report"
)

// Driver version sources, in order of preference: files the kernel module
// writes, then nvidia-smi (which may be a different, bundled build), then
// the user-space library's file name.
const (
	srcSysModule   = "sys_module"
	srcProcVersion = "proc_version"
	srcSMIQuery    = "nvidia_smi_query"
	srcSMIQueryNoC = "nvidia_smi_query_no_cc"
	srcSMIBanner   = "nvidia_smi_banner"
	srcLibcuda     = "libcuda_symlink"
	srcProcGPUs    = "proc_gpus"
)

type driverFiles struct {
	sys, proc, module string
}

func (p *prober) driverFiles() driverFiles {
	var d driverFiles
	if b, err := p.fs.read("/sys/module/nvidia/version"); err == nil {
		d.sys = strings.TrimSpace(string(b))
	}
	if b, err := p.fs.read("/proc/driver/nvidia/version"); err == nil {
		if v, mod, ok := report.ParseProcVersion(b); ok {
			d.proc, d.module = v, mod
		}
	}
	return d
}

// kernel reads whether the NVIDIA kernel module is loaded and which of
// its device nodes exist (probe-methods: /proc/driver/nvidia/version and
// /sys/module/nvidia are the module's; /dev/nvidia0…, /dev/nvidiactl,
// /dev/nvidia-uvm its nodes), whatever they say about GPUs.
func (p *prober) kernel() *host.Kernel {
	k := &host.Kernel{}
	for _, m := range []string{"/proc/driver/nvidia/version", "/sys/module/nvidia"} {
		if p.fs.exists(m) {
			k.Module = append(k.Module, m)
		}
	}
	k.DeviceNodes = p.fs.glob("/dev", "nvidia*")
	return k
}

var infoLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z][A-Za-z ]*?):\s*(.*)$`) })

// procGPUs reads /proc/driver/nvidia/gpus/<bus id>/information.
func (p *prober) procGPUs() []host.GPU {
	var gpus []host.GPU
	for _, dir := range p.fs.glob("/proc/driver/nvidia/gpus", "*") {
		b, err := p.fs.read(path.Join(dir, "information"))
		if err != nil {
			continue
		}
		g := host.GPU{Index: -1, BusID: report.NormalizeBusID(path.Base(dir)), Source: srcProcGPUs}
		for _, l := range strings.Split(string(b), "\n") {
			m := infoLine().FindStringSubmatch(strings.TrimSpace(l))
			if m == nil {
				continue
			}
			val := strings.TrimSpace(m[2])
			switch m[1] {
			case "Model":
				g.Name = val
			case "Bus Location":
				g.BusID = report.NormalizeBusID(val)
			case "Device Minor":
				if n, err := strconv.Atoi(val); err == nil {
					g.Index = n
				}
			}
		}
		gpus = append(gpus, g)
	}
	for i := range gpus {
		if gpus[i].Index < 0 {
			gpus[i].Index = i
		}
	}
	sort.SliceStable(gpus, func(i, j int) bool { return gpus[i].Index < gpus[j].Index })
	return gpus
}

// loadLD reads the loader cache, or asks `ldconfig -p` when there is
// none.
func (p *prober) loadLD(ctx context.Context) {
	p.ldLoaded = true
	b, err := p.fs.read("/etc/ld.so.cache")
	if err == nil {
		es, perr := parseLDCache(b)
		if perr == nil {
			p.ld = es
			return
		}
		p.note("ldconfig", "cannot read /etc/ld.so.cache: %v; asking ldconfig -p", perr)
	}
	if p.opts.Runner == nil {
		return
	}
	out, code, ok := p.run(ctx, "ldconfig", "ldconfig", "-p")
	if !ok {
		return
	}
	if code != 0 {
		p.note("ldconfig", "ldconfig -p exited with status %d", code)
		return
	}
	p.ld = parseLdconfigP(out)
}

var libcudaName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^libcuda\.so\.(\d+\.\d+(?:\.\d+)?)$`) })

// libcudaVersion resolves libcuda.so.1 to its versioned file name. The
// link, not a glob, says which copy is live: containers often carry two.
func (p *prober) libcudaVersion() string {
	var cands []string
	for _, e := range p.ld {
		if e.Name == "libcuda.so.1" {
			cands = append(cands, e.Path)
		}
	}
	cands = append(cands, "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1", "/usr/lib/aarch64-linux-gnu/libcuda.so.1", "/usr/lib/libcuda.so.1")
	for _, c := range cands {
		r, err := p.fs.resolve(c)
		if err != nil {
			continue
		}
		if m := libcudaName().FindStringSubmatch(path.Base(r)); m != nil {
			return m[1]
		}
	}
	return ""
}

// smiFields are asked of nvidia-smi, richest first: compute_cap needs a
// 510+ driver, mig.mode.current a 450+ one.
var smiFields = [][]string{
	{"index", "name", "compute_cap", "driver_version", "memory.total", "pci.bus_id", "mig.mode.current"},
	{"index", "name", "driver_version", "memory.total", "pci.bus_id", "mig.mode.current"},
	{"index", "name", "driver_version", "memory.total", "pci.bus_id"},
}

type smiResult struct {
	rows   []report.QueryRow
	source string
}

func (p *prober) smiQuery(ctx context.Context) smiResult {
	for i, fields := range smiFields {
		out, code, ok := p.run(ctx, "nvidia-smi", "nvidia-smi", "--query-gpu="+strings.Join(fields, ","), "--format=csv,noheader,nounits")
		if !ok {
			return smiResult{}
		}
		if code == 0 {
			src := srcSMIQuery
			if i > 0 {
				src = srcSMIQueryNoC
			}
			return smiResult{rows: report.ParseQueryCSV(out, fields), source: src}
		}
		// Exit 2 with "is not a valid field" means an older driver:
		// ask again with fewer fields. Anything else is final.
		if !strings.Contains(string(out), "is not a valid field") {
			p.note("nvidia-smi", "nvidia-smi exited with status %d: %s", code, firstLine(out))
			return smiResult{}
		}
		if i == 0 {
			p.note("nvidia-smi", "nvidia-smi rejects compute_cap (driver older than 510); compute capability left empty for the GPU table")
		}
	}
	return smiResult{}
}

type bannerResult struct {
	driver, cuda string
	gpus         []host.GPU
	wsl          bool
}

func (p *prober) smiBanner(ctx context.Context) bannerResult {
	out, code, ok := p.run(ctx, "nvidia-smi", "nvidia-smi")
	if !ok {
		return bannerResult{}
	}
	if code != 0 {
		p.note("nvidia-smi", "nvidia-smi exited with status %d: %s", code, firstLine(out))
		return bannerResult{}
	}
	b, ok := report.ParseBanner(out)
	if !ok {
		p.note("nvidia-smi", "nvidia-smi printed no banner")
		return bannerResult{}
	}
	if b.CUDA == "" && b.Driver != "" {
		p.note("nvidia-smi", "nvidia-smi banner has no CUDA Version (pre-410 driver)")
	}
	return bannerResult{driver: b.Driver, cuda: b.CUDA, gpus: b.GPUs, wsl: b.WSL}
}

func (p *prober) driver(files driverFiles, smi smiResult, banner bannerResult, libcuda string) *host.Driver {
	type reading struct{ src, v string }
	var rs []reading
	add := func(src, v string) {
		if v != "" {
			rs = append(rs, reading{src, v})
		}
	}
	add(srcSysModule, files.sys)
	add(srcProcVersion, files.proc)
	for _, r := range smi.rows {
		if r.Driver != "" {
			add(smi.source, r.Driver)
			break
		}
	}
	add(srcSMIBanner, banner.driver)
	add(srcLibcuda, libcuda)
	if len(rs) == 0 {
		return nil
	}
	d := &host.Driver{Version: rs[0].v, Source: rs[0].src, KernelModule: files.module}
	// Under WSL2 the driver is the Windows host's: /usr/lib/wsl holds its
	// user-space libraries, and the banner shows a Linux shim over a
	// Windows version.
	d.WSL = (banner.wsl && d.Version == banner.driver) || (p.fs.exists("/usr/lib/wsl/lib") && files.sys == "" && files.proc == "")
	var others []string
	for _, r := range rs[1:] {
		if r.v != d.Version {
			others = append(others, fmt.Sprintf("%s says %s", r.src, r.v))
		}
	}
	if len(others) > 0 {
		p.note("driver", "driver version readings disagree: %s says %s, %s", d.Source, d.Version, strings.Join(others, ", "))
	}
	return d
}

// mergeProbeGPUs prefers nvidia-smi's rows (they carry compute
// capability) and falls back to /proc.
func mergeProbeGPUs(smi smiResult, proc []host.GPU) []host.GPU {
	if len(smi.rows) == 0 {
		return proc
	}
	gpus := make([]host.GPU, 0, len(smi.rows))
	for _, r := range smi.rows {
		g := r.GPU
		g.Source = smi.source
		if g.BusID == "" {
			for _, pg := range proc {
				if pg.Index == g.Index {
					g.BusID = pg.BusID
				}
			}
		}
		gpus = append(gpus, g)
	}
	sort.SliceStable(gpus, func(i, j int) bool { return gpus[i].Index < gpus[j].Index })
	return gpus
}
