// Package report reads the host descriptions people paste into issues —
// `python -m torch.utils.collect_env`, nvidia-smi in its several forms,
// `pip list`/`pip freeze`, `conda list`, tf.sysconfig.get_build_info(),
// cudb's own probe JSON, or a mix of them — into host.Snapshot, so
// `cudb verify --from` can judge a machine it cannot see. It is pure: it
// reads only the bytes it is given.
package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/internal/input"
	"github.com/cudb/cudb/internal/textin"
)

// Format names, in the order Parse reports them.
const (
	FormatProbeJSON   = "cudb_probe"
	FormatCollectEnv  = "collect_env"
	FormatSMIBanner   = "nvidia_smi"
	FormatSMIQuery    = "nvidia_smi_q"
	FormatSMICSV      = "nvidia_smi_csv"
	FormatSMIList     = "nvidia_smi_l"
	FormatPipList     = "pip_list"
	FormatPipFreeze   = "pip_freeze"
	FormatCondaList   = "conda_list"
	FormatTFBuildInfo = "tf_build_info"
	FormatLdconfig    = "ldconfig"
	FormatErrors      = "errors"
	FormatLog         = "log"
)

// ErrUnknownFormat is returned when text matches no known format and
// holds no error lines.
var ErrUnknownFormat = errors.New("no known report format and nothing recognisable in this text: looked for collect_env, nvidia-smi (banner, -q, --query-gpu CSV, -L), pip list/freeze, conda list, tf build info, ldconfig -p, cudb probe JSON, error messages, and driver, CUDA, cuDNN, GPU, Python and framework versions named anywhere")

// MaxSize bounds what Parse reads; reports are a few kilobytes.
const MaxSize = 4 << 20

// Parse reads a report and returns the facts it states and the formats it
// recognised. A paste may mix several formats; each contributes what it
// knows.
func Parse(text []byte) (*host.Snapshot, []string, error) { return ParseWith(text, frameworks.All) }

// ParseWith is Parse reading frameworks with table: every environment
// read indexes the table's frameworks it installs (host.Python's
// Frameworks), and a line that states one under a report key of its
// entry ("PyTorch version: 2.1.0") names its version where no package
// list did.
func ParseWith(text []byte, table frameworks.Table) (*host.Snapshot, []string, error) {
	// A byte-order mark (UTF-8, or UTF-16 as PowerShell's `>` writes) is
	// decoded first: the report is read as the text it holds.
	if len(text) <= MaxSize {
		if s, enc, err := input.Decode("the report", text); err == nil && enc != input.UTF8 {
			text = []byte(s)
		}
	}
	f, formats, err := parse(text)
	if err != nil {
		return f, formats, err
	}
	indexFrameworks(f, text, table.Or())
	return f, formats, nil
}

// parse reads a report with cudb's framework table.
func parse(text []byte) (*host.Snapshot, []string, error) {
	if len(text) > MaxSize {
		return nil, nil, errs.Errorf(errs.CodeLimit, "the report is %d bytes, over the limit of %d (4 MiB)", len(text), MaxSize).WithHint("send the lines around the failure, not the whole log")
	}
	if why := textin.NotText(text); why != "" {
		return nil, nil, errs.Usage("the report is not text (%s): refused rather than searched for facts", why).
			WithHint("give the report as the tool printed it (a text file, or - for standard input)")
	}
	if f, ok := parseProbeJSON(text); ok {
		if empty(f) {
			return nil, nil, ErrNoFacts
		}
		if err := checkFacts(f); err != nil {
			return nil, nil, err
		}
		return f, []string{FormatProbeJSON}, nil
	}
	p := &parser{lines: lines(text), text: text}
	p.collectEnv()
	p.smi()
	p.packages()
	p.tfBuildInfo()
	p.ldconfig()
	p.torchConfig()
	p.extract()
	p.errorLines()
	p.logLines()
	if len(p.formats) == 0 {
		return nil, nil, ErrUnknownFormat
	}
	f := p.facts()
	if err := checkFacts(f); err != nil {
		return nil, nil, err
	}
	return f, p.formats, nil
}

func parseProbeJSON(text []byte) (*host.Snapshot, bool) {
	t := bytes.TrimSpace(text)
	if len(t) == 0 || t[0] != '{' {
		return nil, false
	}
	var f host.Snapshot
	if err := json.Unmarshal(t, &f); err != nil || (f.Origin != host.OriginHost && !strings.HasPrefix(f.Origin, host.OriginReportPrefix)) {
		return nil, false
	}
	return &f, true
}

// parser accumulates what each recogniser found.
type parser struct {
	lines   []string
	text    []byte
	formats []string

	driver, driverSrc  string
	wslDriver          string // the banner's driver when it is a Windows one seen through WSL2
	driverCUDA, dcSrc  string
	gpuSets            [][]host.GPU // in precedence order of arrival
	toolkits           []host.Toolkit
	cudnn              []host.CUDNN
	py                 *host.Python
	pyTorch            *host.Torch
	tf                 *host.TensorFlow
	errors             []string
	collectEnvKeyLines map[int]bool
	// what the free-text extractor read (extract.go)
	read   []host.Reading
	os     string
	ldPath []string
	// ldPreload is LD_PRELOAD as a report states it.
	ldPreload []string
	// buildCUDA is the CUDA torch.__config__.show() says torch was built with.
	buildCUDA string
	// consumed marks lines an exact recogniser read; the extractor skips them.
	consumed map[int]bool
}

func (p *parser) consume(i int) {
	if p.consumed == nil {
		p.consumed = map[int]bool{}
	}
	p.consumed[i] = true
}

func (p *parser) found(format string) {
	for _, f := range p.formats {
		if f == format {
			return
		}
	}
	p.formats = append(p.formats, format)
}

func (p *parser) python(source string) *host.Python {
	if p.py == nil {
		p.py = &host.Python{Kind: host.KindReport, Source: source}
	}
	return p.py
}

func (p *parser) setPackage(name, version string) {
	py := p.python("")
	if py.Packages == nil {
		py.Packages = map[string]string{}
	}
	py.Packages[host.NormalizeName(name)] = version
}

func (p *parser) setDriver(v, src string) {
	if p.driver == "" && v != "" {
		p.driver, p.driverSrc = v, src
	}
}

func (p *parser) addCUDNN(c host.CUDNN) {
	for _, have := range p.cudnn {
		if have.Path == c.Path && have.Version == c.Version && have.Source == c.Source {
			return
		}
	}
	p.cudnn = append(p.cudnn, c)
}

// smi reads the nvidia-smi banner, `nvidia-smi -q` and --query-gpu CSV.
func (p *parser) smi() {
	if b, ok := ParseBanner(p.text); ok {
		p.found(FormatSMIBanner)
		if b.Driver != "" {
			p.setDriverFirst(b.Driver, FormatSMIBanner)
			if b.WSL {
				p.wslDriver = b.Driver
			}
		}
		if b.CUDA != "" {
			p.driverCUDA, p.dcSrc = b.CUDA, FormatSMIBanner
		}
		for i := range b.GPUs {
			b.GPUs[i].Source = FormatSMIBanner
		}
		if len(b.GPUs) > 0 {
			p.gpuSets = append([][]host.GPU{b.GPUs}, p.gpuSets...)
		}
	}
	if q, ok := ParseSMIQuery(p.text); ok {
		p.found(FormatSMIQuery)
		p.setDriverFirst(q.Driver, FormatSMIQuery)
		if q.CUDA != "" && p.driverCUDA == "" {
			p.driverCUDA, p.dcSrc = q.CUDA, FormatSMIQuery
		}
		for i := range q.GPUs {
			q.GPUs[i].Source = FormatSMIQuery
		}
		if len(q.GPUs) > 0 {
			p.gpuSets = append([][]host.GPU{q.GPUs}, p.gpuSets...)
		}
	}
	if rows := ParseQueryCSV(p.text, nil); len(rows) > 0 {
		p.found(FormatSMICSV)
		gpus := make([]host.GPU, 0, len(rows))
		for _, r := range rows {
			if r.Driver != "" {
				p.setDriverFirst(r.Driver, FormatSMICSV)
			}
			if r.GPU.Name != "" {
				g := r.GPU
				g.Source = FormatSMICSV
				gpus = append(gpus, g)
			}
		}
		if len(gpus) > 0 {
			p.gpuSets = append([][]host.GPU{gpus}, p.gpuSets...)
		}
	}
}

// setDriverFirst lets nvidia-smi's reading win over collect_env's, which
// is itself read from nvidia-smi but may be older.
func (p *parser) setDriverFirst(v, src string) {
	if v == "" {
		return
	}
	if p.driverSrc == FormatCollectEnv || p.driver == "" {
		p.driver, p.driverSrc = v, src
	}
}

var (
	pipListHdr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Package\s+Version(\s+\S.*)?$`) })
	pipRow     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*)\s+(\d\S*)(\s+.*)?$`) })
	freezeRow  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*===?\s*([^\s;#]+)`)
	})
	condaHdr   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#\s*packages in environment at\s+(.+?):?\s*$`) })
	condaNames = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#\s*Name\s+Version\s+Build`) })
	condaRow   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([A-Za-z0-9_][A-Za-z0-9._-]*)\s+(\d\S*)\s+(\S+)(?:\s+(\S+))?\s*$`)
	})
)

// packages reads `pip list`, `pip freeze` and `conda list`.
func (p *parser) packages() {
	mode := ""
	for i, l := range p.lines {
		t := strings.TrimSpace(l)
		switch {
		case pipListHdr().MatchString(t):
			mode = "pip_list"
			continue
		case condaHdr().MatchString(t):
			mode = "conda"
			p.found(FormatCondaList)
			p.python(FormatCondaList).Prefix = condaHdr().FindStringSubmatch(t)[1]
			continue
		case condaNames().MatchString(t):
			mode = "conda"
			p.found(FormatCondaList)
			continue
		case t == "" || strings.HasPrefix(t, "---"):
			if t == "" {
				mode = ""
			}
			continue
		}
		if p.collectEnvKeyLines[i] {
			continue
		}
		switch mode {
		case "pip_list":
			if m := pipRow().FindStringSubmatch(t); m != nil {
				p.found(FormatPipList)
				p.python(FormatPipList)
				p.setPackage(m[1], m[2])
				p.consume(i)
				continue
			}
			mode = ""
		case "conda":
			if m := condaRow().FindStringSubmatch(t); m != nil {
				p.python(FormatCondaList)
				p.condaLine([]string{m[1], m[2], m[3], m[4]})
				p.consume(i)
				continue
			}
			if !strings.HasPrefix(t, "#") {
				mode = ""
			}
		}
		if m := freezeRow().FindStringSubmatch(t); m != nil && !strings.HasPrefix(t, "[") {
			p.found(FormatPipFreeze)
			p.python(FormatPipFreeze)
			p.setPackage(m[1], m[2])
			p.consume(i)
		}
	}
}

var tfMarker = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`OrderedDict\(\[|['"]is_cuda_build['"]|build_info\[`) })

// tfBuildInfo reads tf.sysconfig.get_build_info() output.
func (p *parser) tfBuildInfo() {
	// the literals first: a regexp alternation scans the whole text slowly
	if !bytes.Contains(p.text, []byte("OrderedDict([")) && !bytes.Contains(p.text, []byte("is_cuda_build")) && !bytes.Contains(p.text, []byte("build_info[")) {
		return
	}
	if !tfMarker().Match(p.text) {
		return
	}
	b, ok := ParseTFBuildInfo(p.text)
	if !ok {
		return
	}
	p.found(FormatTFBuildInfo)
	p.tf = &host.TensorFlow{CUDA: b.CUDA, CUDNN: b.CUDNN, IsGPU: b.IsGPU, Source: FormatTFBuildInfo}
	p.python(FormatTFBuildInfo)
}

var ldRow = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(lib\S+\.so[.\d]*)\s+\(([^)]*)\)\s+=>\s+(\S+)\s*$`)
})

// ldconfig reads `ldconfig -p` lines for cuDNN.
func (p *parser) ldconfig() {
	for i, l := range p.lines {
		m := ldRow().FindStringSubmatch(l)
		if m == nil {
			continue
		}
		p.consume(i)
		p.found(FormatLdconfig)
		c, ok := CUDNNFromLib(m[1], m[3], host.CUDNNLdconfig)
		if ok {
			p.addCUDNN(c)
		}
	}
}

var libCUDNNName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^libcudnn\.so\.(\d+(?:\.\d+)*)$`) })

// CUDNNFromLib describes the main cuDNN library (libcudnn.so.N...) at
// path; the version comes from the most specific of name and the base
// name of path. ok is false for other libraries (libcudnn_ops_infer...).
func CUDNNFromLib(name, path, source string) (host.CUDNN, bool) {
	m := libCUDNNName().FindStringSubmatch(name)
	if m == nil {
		return host.CUDNN{}, false
	}
	ver := m[1]
	if pm := libCUDNNName().FindStringSubmatch(baseName(path)); pm != nil && len(pm[1]) > len(ver) {
		ver = pm[1]
	}
	v, major, ok := host.NormalizeCUDNN(ver)
	if !ok {
		return host.CUDNN{}, false
	}
	return host.CUDNN{Path: path, Version: v, Major: major, Source: source}, true
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

var errLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(error|exception)\b|\w(error|exception):|incompatib|failed|could not load|couldn't open|cannot open shared object|not compatible|insufficient|too old|no kernel image|undefined symbol|mismatch|not compiled with cuda|unsatisfied condition|no devices were found|not a valid field|unknown error|found no nvidia driver|loaded runtime cudnn|linked against|unable to load|not in available provider|_status_|cannot dlopen|no cuda-capable|out of memory|device-side assert|illegal memory|no matching distribution|supports cuda capabilities|version jax was built against|minimum supported:|installed version:|outdated cudnn|dll not found|winerror|driver/library|was compiled with|not supported on|dnn library is not found|please make sure to use the same cuda|^pytorch \(\d|\bfatal\b|unsupported gpu architecture|loadlibrary failed|backend failed to initialize|unable to register|could not find tensorrt|numa node read|memcpy nodes are added|unable to initialize backend|invalid_ptx|ptx jit|unsupported \.version|ptxas too old|ignoring (?:visible )?gpu device|not built with cuda kernel binaries|unhandled system error|unhandled cuda error|remote process exited|ir version|opset \d+ is under development|older than the (?:ptxas|ptx compiler)|this tensorflow binary is optimized|failed to create cudaexecutionprovider|invoking ptxas with version|available providers|cuda-enabled jaxlib|falling back to cpu|no gpu/tpu found|cpuexecutionprovider'\s*\]|index\s*=\s*"pytorch-cu\d+"[^\n]*marker|could not locate \S+\.dll`)
})

// errWords are substrings (lowercase) of which errLine needs at least
// one: a cheap test that spares most lines the case-folding regexp.
var errWords = []string{"error", "exception", "incompatib", "failed", "could not load", "couldn't open", "cannot open shared object", "not compatible",
	"insufficient", "too old", "no kernel image", "undefined symbol", "mismatch", "not compiled with cuda",
	"unsatisfied condition", "no devices were found", "not a valid field", "unknown error", "found no nvidia driver",
	"loaded runtime cudnn", "linked against", "unable to load", "not in available provider", "_status_", "cannot dlopen",
	"no cuda-capable", "out of memory", "device-side assert", "illegal memory", "no matching distribution",
	"supports cuda capabilities", "version jax was built against", "minimum supported:", "installed version:",
	"outdated cudnn", "dll not found", "winerror", "driver/library", "was compiled with", "not supported on",
	"dnn library is not found", "please make sure to use the same cuda", "pytorch (", "fatal",
	"unsupported gpu architecture", "loadlibrary failed", "backend failed to initialize", "unable to register",
	"could not find tensorrt", "numa node read", "memcpy nodes are added", "unable to initialize backend", "invalid_ptx",
	"ptx jit", "unsupported .version", "ptxas too old", "ignoring", "not built with cuda kernel binaries",
	"unhandled system error", "unhandled cuda error", "remote process exited", "ir version", "is under development",
	"older than the ptx", "this tensorflow binary is optimized", "failed to create cudaexecutionprovider",
	"invoking ptxas with version", "available providers", "cuda-enabled jaxlib", "falling back to cpu", "no gpu/tpu found", "cpuexecutionprovider'", "pytorch-cu", "could not locate"}

func maybeErrLine(t string) bool {
	l := strings.ToLower(t)
	for _, w := range errWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

var compilerFlags = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|\s)-W(?:no-)?error\b(?:=[\w+.-]+)?`) })

// errorLines keeps lines that report a failure, verbatim, once each.
func (p *parser) errorLines() {
	seen := map[string]bool{}
	for i, l := range p.lines {
		t := strings.TrimSpace(l)
		// A compiler's warning flags (-Werror=return-type in torch's
		// build settings) are not errors.
		flagless := compilerFlags().ReplaceAllString(t, "")
		if t == "" || p.collectEnvKeyLines[i] || len(t) > 2000 || !maybeErrLine(flagless) {
			continue
		}
		// a message a log repeats differs only by its timestamp and
		// process id: it is one error line, kept as first seen
		key := logKey(t)
		if seen[key] || !errLine().MatchString(flagless) {
			continue
		}
		seen[key] = true
		p.errors = append(p.errors, t)
	}
	if len(p.errors) > 0 && len(p.formats) == 0 {
		p.found(FormatErrors)
	}
}

func (p *parser) facts() *host.Snapshot {
	f := &host.Snapshot{Origin: host.OriginReportPrefix + strings.Join(p.formats, "+"), Errors: p.errors, OS: p.os, LDLibraryPath: p.ldPath, LDPreload: p.ldPreload}
	defer func() { f.Read = readings(f, p.read) }()
	if p.driver != "" {
		f.Driver = &host.Driver{Version: p.driver, Source: p.driverSrc, WSL: p.wslDriver != "" && p.wslDriver == p.driver}
	}
	if p.driverCUDA != "" {
		f.DriverCUDA = &host.DriverCUDA{Version: p.driverCUDA, Source: p.dcSrc}
	}
	f.GPUs = mergeGPUs(p.gpuSets)
	f.Toolkits = p.toolkits
	f.CUDNN = p.cudnn
	if p.py != nil {
		py := *p.py
		if py.Source == "" {
			py.Source = p.formats[0]
		}
		py.Torch = p.pyTorch
		if p.tf != nil {
			py.TensorFlow = p.tf
			for _, name := range frameworks.Must(frameworks.TensorFlow).Packages {
				if v, ok := py.Packages[name]; ok {
					py.TensorFlow.Version, py.TensorFlow.Package = v, name
					break
				}
			}
		}
		if py.Torch != nil {
			if v, ok := py.Packages[frameworks.Torch]; ok && py.Torch.Version != v && strings.HasPrefix(v, py.Torch.Version+"+") {
				// conda list shows 2.1.0 where pip shows 2.1.0+cu121.
				py.Torch = host.TorchFrom(v, py.Torch.CUDA, py.Torch.Source)
			}
		}
		src := py.Source
		py.Derive(src)
		for name, v := range py.NvidiaWheels {
			if strings.HasPrefix(name, "nvidia-cudnn-cu") {
				if ver, major, ok := host.NormalizeCUDNN(v); ok {
					f.CUDNN = append(f.CUDNN, host.CUDNN{Version: ver, Major: major, Raw: v, Source: host.CUDNNPip})
				}
			}
		}
		f.Pythons = []host.Python{py}
	}
	return f
}

// mergeGPUs takes the first (most precise) list and fills what it lacks
// from the others, matched by index.
func mergeGPUs(sets [][]host.GPU) []host.GPU {
	if len(sets) == 0 {
		return nil
	}
	out := append([]host.GPU(nil), sets[0]...)
	for _, set := range sets[1:] {
		for _, g := range set {
			for i := range out {
				if out[i].Index != g.Index {
					continue
				}
				if out[i].Name == "" || strings.HasSuffix(out[i].Name, "...") {
					out[i].Name = g.Name
				}
				if out[i].BusID == "" {
					out[i].BusID = g.BusID
				}
				if out[i].MemoryMiB == 0 {
					out[i].MemoryMiB = g.MemoryMiB
				}
				if out[i].ComputeCapability == "" {
					out[i].ComputeCapability = g.ComputeCapability
				}
				out[i].MIG = out[i].MIG || g.MIG
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out
}

var (
	dottedRun   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d+(?:\.\d+)+`) })
	bareVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+(?:\.\d+)*$`) })
)
