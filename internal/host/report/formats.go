package report

import (
	"bufio"
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/cudb/cudb/internal/host"
)

// The parsers in this file read one tool's output or one file's text.
// The probe uses them on what it reads from a host; Parse uses them on
// pastes. None of them fails: what they cannot read they leave out.

var (
	bannerDriver = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:Driver|KMD) Version:\s*([0-9][0-9.]*)`) })
	bannerCUDA   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`CUDA(?: UMD)? Version:\s*([0-9][0-9.]*)`) })
	bannerSMI    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`NVIDIA-SMI\s+([0-9][0-9.]*)`) })
	// A GPU row of the banner table: index, name, persistence mode or
	// TCC/WDDM, then the bus id in the next column.
	bannerGPU = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\|\s+(\d+)\s+(.+?)\s+(?:On|Off|TCC|WDDM|N/A)\s+\|\s+([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])`)
	})
	bannerMem = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d+MiB\s*/\s*(\d+)MiB`) })
	migRow    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\|\s+(\d+)\s+(\d+|N/A)\s+(\d+|N/A)\s+(\d+)\s+\|`) })
)

// Banner is what the nvidia-smi banner (no arguments) tells.
type Banner struct {
	SMIVersion string // the nvidia-smi binary's own version
	Driver     string
	CUDA       string
	GPUs       []host.GPU
	// WSL is true when a Linux nvidia-smi (three-field version) reports a
	// two-field Windows driver: the WSL2 shim over the Windows driver.
	// (A snap-bundled old nvidia-smi also disagrees with its driver, but
	// both numbers are Linux ones.)
	WSL bool
}

// wslBanner tells the WSL2 shim (NVIDIA-SMI 510.73.05, Driver Version:
// 516.94) from other disagreements.
func wslBanner(smi, driver string) bool {
	return smi != "" && driver != "" && smi != driver &&
		strings.Count(smi, ".") == 2 && strings.Count(driver, ".") == 1
}

// ParseBanner reads an nvidia-smi banner; ok is false when text has none.
func ParseBanner(text []byte) (b Banner, ok bool) {
	inMIG := false
	var last *host.GPU
	for _, line := range lines(text) {
		if m := bannerSMI().FindStringSubmatch(line); m != nil && strings.Contains(line, "Version:") {
			ok = true
			b.SMIVersion = m[1]
			if m := bannerDriver().FindStringSubmatch(line); m != nil {
				b.Driver = m[1]
			}
			if m := bannerCUDA().FindStringSubmatch(line); m != nil {
				b.CUDA = m[1]
			}
			continue
		}
		if !ok {
			continue
		}
		if strings.Contains(line, "MIG devices:") {
			inMIG = true
			continue
		}
		if strings.Contains(line, "Processes:") {
			inMIG = false
			continue
		}
		if inMIG {
			if m := migRow().FindStringSubmatch(line); m != nil {
				idx, _ := strconv.Atoi(m[1])
				for i := range b.GPUs {
					if b.GPUs[i].Index == idx {
						b.GPUs[i].MIG = true
					}
				}
			}
			continue
		}
		if m := bannerGPU().FindStringSubmatch(line); m != nil {
			idx, _ := strconv.Atoi(m[1])
			b.GPUs = append(b.GPUs, host.GPU{Index: idx, Name: strings.TrimSpace(m[2]), BusID: NormalizeBusID(m[3]), Source: "nvidia_smi_banner"})
			last = &b.GPUs[len(b.GPUs)-1]
			continue
		}
		if last != nil && last.MemoryMiB == 0 {
			if m := bannerMem().FindStringSubmatch(line); m != nil {
				last.MemoryMiB, _ = strconv.Atoi(m[1])
			}
		}
	}
	b.WSL = wslBanner(b.SMIVersion, b.Driver)
	return b, ok
}

// NormalizeBusID writes a PCI bus id the way /proc does: a four-digit
// domain, lowercase ("00000000:01:00.0" → "0000:01:00.0").
func NormalizeBusID(id string) string {
	id = strings.ToLower(strings.TrimSpace(id))
	parts := strings.SplitN(id, ":", 2)
	if len(parts) == 2 && len(parts[0]) > 4 {
		parts[0] = parts[0][len(parts[0])-4:]
	}
	return strings.Join(parts, ":")
}

var procVersion = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`NVRM version:\s+NVIDIA UNIX\s+(.*?)\s{2,}([0-9]+\.[0-9]+(?:\.[0-9]+)?)\s`)
})

// ParseProcVersion reads /proc/driver/nvidia/version: the driver version
// and "open" or "proprietary" for the kernel module.
func ParseProcVersion(text []byte) (version, module string, ok bool) {
	m := procVersion().FindSubmatch(append(bytes.TrimSpace(text), ' '))
	if m == nil {
		return "", "", false
	}
	module = "proprietary"
	if bytes.Contains(m[1], []byte("Open Kernel Module")) {
		module = "open"
	}
	return string(m[2]), module, true
}

var nvccRelease = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`release\s+([0-9]+\.[0-9]+)(?:,\s*V([0-9][0-9.]*))?`) })

// ParseNvcc reads `nvcc --version`: the full version ("12.1.66") when
// printed, else the release ("12.1").
func ParseNvcc(text []byte) (string, bool) {
	m := nvccRelease().FindSubmatch(text)
	if m == nil {
		return "", false
	}
	if len(m[2]) > 0 {
		return string(m[2]), true
	}
	return string(m[1]), true
}

var (
	torchVersionRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^__version__\s*=\s*['"]([^'"]+)['"]`) })
	torchCUDARe    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^cuda\s*(?::\s*[A-Za-z_.\[\]]+\s*)?=\s*(None|['"][^'"]*['"])`)
	})
)

// ParseTorchVersionPy reads torch/version.py as text: the version and the
// CUDA version it was built with ("" for None).
func ParseTorchVersionPy(text []byte) (version, cuda string, ok bool) {
	m := torchVersionRe().FindSubmatch(text)
	if m == nil {
		return "", "", false
	}
	version = string(m[1])
	if c := torchCUDARe().FindSubmatch(text); c != nil && string(c[1]) != "None" {
		cuda = strings.Trim(string(c[1]), `'"`)
	}
	return version, cuda, true
}

// TFBuild is TensorFlow's build information.
type TFBuild struct {
	CUDA  string
	CUDNN string
	IsGPU *bool
}

var (
	// build_info['cuda_version'] = '11.2', ('cuda_version', '11.2'),
	// 'cuda_version': '11.2', and the old cuda_version_number = '10.1'.
	tfKey = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`['"]?\b(cuda_version|cudnn_version|cuda_version_number|cudnn_version_number|is_cuda_build)\b['"]?\s*(?:\]\s*=|,|:|=)\s*(True|False|'[^'\n]*'|"[^"\n]*")`)
	})
)

// ParseTFBuildInfo reads tensorflow's build_info.py or the printed
// tf.sysconfig.get_build_info() (dict or OrderedDict repr).
func ParseTFBuildInfo(text []byte) (b TFBuild, ok bool) {
	for _, m := range tfKey().FindAllSubmatch(text, -1) {
		val := strings.Trim(string(m[2]), `'"`)
		switch string(m[1]) {
		case "cuda_version", "cuda_version_number":
			b.CUDA, ok = val, true
		case "cudnn_version", "cudnn_version_number":
			b.CUDNN, ok = val, true
		case "is_cuda_build":
			gpu := val == "True"
			b.IsGPU, ok = &gpu, true
		}
	}
	return b, ok
}

var cudnnMacro = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*#\s*define\s+CUDNN_(MAJOR|MINOR|PATCHLEVEL)\s+(\d+)`)
})

// ParseCUDNNHeader reads the CUDNN_MAJOR/MINOR/PATCHLEVEL macros of
// cudnn_version.h (cuDNN ≥ 8) or cudnn.h (≤ 7).
func ParseCUDNNHeader(text []byte) (version string, major int, ok bool) {
	got := map[string]string{}
	for _, m := range cudnnMacro().FindAllSubmatch(text, -1) {
		if _, seen := got[string(m[1])]; !seen {
			got[string(m[1])] = string(m[2])
		}
	}
	if got["MAJOR"] == "" || got["MINOR"] == "" {
		return "", 0, false
	}
	v := got["MAJOR"] + "." + got["MINOR"]
	if got["PATCHLEVEL"] != "" {
		v += "." + got["PATCHLEVEL"]
	}
	return host.NormalizeCUDNN(v)
}

// Metadata is the part of a dist-info METADATA (or PKG-INFO) file cudb
// reads.
type Metadata struct {
	Name     string
	Version  string
	Requires []string
}

// ParseMetadata reads the RFC 822 header block of METADATA; the body
// (the long description) is not read.
func ParseMetadata(text []byte) Metadata {
	var md Metadata
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			break
		}
		k, v, found := strings.Cut(line, ":")
		if !found {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "Name":
			md.Name = v
		case "Version":
			md.Version = v
		case "Requires-Dist":
			md.Requires = append(md.Requires, v)
		}
	}
	return md
}

// lines splits text into lines without their line ends.
func lines(text []byte) []string {
	s := strings.ReplaceAll(string(text), "\r\n", "\n")
	return strings.Split(s, "\n")
}

var (
	csvDriver = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{3}\.\d{1,3}(?:\.\d{1,3})?$`) })
	csvCC     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{1,2}\.\d$`) })
	csvMem    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+) MiB$`) })
	csvBus    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]$`)
	})
	csvIndex = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{1,3}$`) })
	gpuWord  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(nvidia|tesla|geforce|quadro|titan|rtx|gtx|grid)\b|\b[AHBLTVPK]\d{1,3}\b`)
	})
	unitSufx = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s*\[[^\]]*\]$`) })
)

// QueryRow is one row of `nvidia-smi --query-gpu ... --format=csv`.
type QueryRow struct {
	GPU    host.GPU
	Driver string
}

// ParseQueryCSV reads `nvidia-smi --query-gpu=... --format=csv[,noheader]`
// output. fields names the queried columns when the caller knows them
// (the probe); otherwise a header line names them, and without one each
// cell is recognised by its shape.
func ParseQueryCSV(text []byte, fields []string) []QueryRow {
	var rows []QueryRow
	cols := fields
	for _, line := range lines(text) {
		line = strings.TrimSpace(line)
		if line == "" || !strings.Contains(line, ",") && len(cols) != 1 {
			continue
		}
		// --query-gpu rows are short and unquoted: traceback and prose
		// lines with commas are not worth splitting and matching.
		if cols == nil && (len(line) > 300 || strings.ContainsAny(line, "\"'()[]{}=")) {
			continue
		}
		cells := strings.Split(line, ",")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if cols == nil && isQueryHeader(cells) {
			cols = make([]string, len(cells))
			for i, c := range cells {
				cols[i] = unitSufx().ReplaceAllString(c, "")
			}
			continue
		}
		var r QueryRow
		var ok bool
		if cols != nil {
			if len(cells) != len(cols) {
				continue
			}
			r, ok = rowByName(cols, cells)
		} else {
			r, ok = rowByShape(cells)
		}
		if ok {
			rows = append(rows, r)
		}
	}
	for i := range rows {
		if rows[i].GPU.Index < 0 {
			rows[i].GPU.Index = i
		}
	}
	return rows
}

func isQueryHeader(cells []string) bool {
	known := 0
	for _, c := range cells {
		switch unitSufx().ReplaceAllString(c, "") {
		case "index", "name", "compute_cap", "driver_version", "memory.total", "pci.bus_id", "mig.mode.current", "compute_mode", "uuid", "gpu_name", "gpu_bus_id":
			known++
		}
	}
	return known > 0 && known*2 >= len(cells)
}

func rowByName(cols, cells []string) (QueryRow, bool) {
	r := QueryRow{GPU: host.GPU{Index: -1}}
	for i, c := range cols {
		v := cells[i]
		if v == "[N/A]" || v == "N/A" || v == "[Not Supported]" {
			continue
		}
		switch c {
		case "index":
			if n, err := strconv.Atoi(v); err == nil {
				r.GPU.Index = n
			}
		case "name", "gpu_name":
			r.GPU.Name = v
		case "compute_cap":
			if csvCC().MatchString(v) {
				r.GPU.ComputeCapability = v
			}
		case "driver_version":
			r.Driver = v
		case "memory.total":
			if n, err := strconv.Atoi(strings.TrimSuffix(v, " MiB")); err == nil {
				r.GPU.MemoryMiB = n
			}
		case "pci.bus_id", "gpu_bus_id":
			if csvBus().MatchString(v) {
				r.GPU.BusID = NormalizeBusID(v)
			}
		case "mig.mode.current":
			r.GPU.MIG = v == "Enabled"
		}
	}
	return r, r.GPU.Name != "" || r.Driver != ""
}

func rowByShape(cells []string) (QueryRow, bool) {
	r := QueryRow{GPU: host.GPU{Index: -1}}
	typed := 0
	for _, v := range cells {
		switch {
		case csvDriver().MatchString(v):
			r.Driver = v
			typed++
		case csvCC().MatchString(v):
			r.GPU.ComputeCapability = v
			typed++
		case csvMem().MatchString(v):
			r.GPU.MemoryMiB, _ = strconv.Atoi(csvMem().FindStringSubmatch(v)[1])
			typed++
		case csvBus().MatchString(v):
			r.GPU.BusID = NormalizeBusID(v)
			typed++
		case csvIndex().MatchString(v):
			r.GPU.Index, _ = strconv.Atoi(v)
		case gpuWord().MatchString(v) && r.GPU.Name == "":
			r.GPU.Name = v
		}
	}
	return r, r.GPU.Name != "" && typed > 0
}

var (
	qKV     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\s*)([A-Za-z][A-Za-z0-9 ./()_-]*?)\s*:\s*(.*)$`) })
	qGPUHdr = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s*$`)
	})
)

// SMIQuery is what `nvidia-smi -q` tells.
type SMIQuery struct {
	Driver string
	CUDA   string
	GPUs   []host.GPU
}

// ParseSMIQuery reads `nvidia-smi -q` (the text form); ok is false when
// text has no "Driver Version" line with GPU blocks or a GPU count.
func ParseSMIQuery(text []byte) (q SMIQuery, ok bool) {
	var cur *host.GPU
	section := ""
	attached := false
	for _, line := range lines(text) {
		if m := qGPUHdr().FindStringSubmatch(strings.TrimSpace(line)); m != nil && !strings.HasPrefix(line, " ") {
			q.GPUs = append(q.GPUs, host.GPU{Index: len(q.GPUs), BusID: NormalizeBusID(m[1]), Source: "nvidia_smi_q"})
			cur = &q.GPUs[len(q.GPUs)-1]
			section = ""
			continue
		}
		m := qKV().FindStringSubmatch(line)
		if m == nil {
			t := strings.TrimSpace(line)
			if t != "" && !strings.Contains(t, ":") {
				section = t
			}
			continue
		}
		key, val := strings.TrimSpace(m[2]), strings.TrimSpace(m[3])
		if val == "" {
			section = key
			continue
		}
		if cur == nil {
			switch key {
			case "Driver Version", "KMD Version":
				q.Driver = val
			case "CUDA Version", "CUDA UMD Version":
				q.CUDA = val
			case "Attached GPUs":
				attached = true
			}
			continue
		}
		switch {
		case key == "Product Name":
			cur.Name = val
		case key == "Minor Number":
			if n, err := strconv.Atoi(val); err == nil {
				cur.Index = n
			}
		case key == "Current" && section == "MIG Mode":
			cur.MIG = val == "Enabled"
		case key == "Total" && section == "FB Memory Usage":
			if n, err := strconv.Atoi(strings.TrimSuffix(val, " MiB")); err == nil {
				cur.MemoryMiB = n
			}
		}
	}
	return q, q.Driver != "" && (attached || len(q.GPUs) > 0)
}
