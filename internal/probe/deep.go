package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cudb/cudb/internal/host"
)

// DefaultDeepTimeout bounds one interpreter run of --deep: importing
// torch and TensorFlow and initialising CUDA take seconds, far more than
// nvidia-smi's DefaultTimeout.
const DefaultDeepTimeout = 30 * time.Second

// DeepScript is the program --deep passes to `python -c`. It imports
// only the frameworks the environment has, each in its own try, and
// prints one JSON object as its last line; warnings go nowhere so that
// stdout stays parseable. A one-element product on GPU 0 is the only
// GPU work: it is what raises "no kernel image is available".
const DeepScript = `import json,os,sys,warnings
from importlib.util import find_spec
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL","3")
warnings.simplefilter("ignore")
r={"python":"%d.%d.%d"%sys.version_info[:3]}
def err(x):return (type(x).__name__+": "+str(x)).strip()
def has(m):
 try:return find_spec(m) is not None
 except Exception:return False
if has("torch"):
 t=r["torch"]={}
 try:
  import torch as m;c=m.cuda
  t["version"]=m.__version__;t["cuda"]=m.version.cuda
  try:t["cudnn"]=m.backends.cudnn.version()
  except Exception as x:t["cudnn_error"]=err(x)
  t["available"]=c.is_available()
  if not t["available"]:
   try:c.init()
   except Exception as x:t["cuda_error"]=err(x)
  t["device_count"]=c.device_count();t["arch_list"]=c.get_arch_list()
  if t["available"]:
   t["devices"]=[{"name":c.get_device_name(i),"cc":list(c.get_device_capability(i))} for i in range(t["device_count"])]
   try:t["nccl"]=c.nccl.version()
   except Exception:pass
   try:(m.ones(1,device="cuda")*2).cpu()
   except Exception as x:t["kernel_error"]=err(x)
 except Exception as x:t["error"]=err(x)
if has("tensorflow"):
 f=r["tensorflow"]={}
 try:
  import tensorflow as m;b=m.sysconfig.get_build_info()
  f["version"]=m.__version__;f["cuda"]=b.get("cuda_version");f["cudnn"]=b.get("cudnn_version")
  f["is_cuda_build"]=b.get("is_cuda_build");f["gpus"]=len(m.config.list_physical_devices("GPU"))
 except Exception as x:f["error"]=err(x)
if has("jax"):
 j=r["jax"]={}
 try:
  import jax as m
  j["version"]=m.__version__;j["devices"]=[{"platform":d.platform,"kind":getattr(d,"device_kind","")} for d in m.devices()]
 except Exception as x:j["error"]=err(x)
print();print(json.dumps(r))
`

// deepScriptKey stands for DeepScript in a recorded command line, which
// cannot hold the script's newlines.
const deepScriptKey = "<deep-script>"

// probeInterpreter is the Note.Probe of interpreter runs.
const probeInterpreter = "interpreter"

func hasFramework(py *host.Python) bool {
	return py.Torch != nil || py.TensorFlow != nil || py.JAX != nil
}

// interpreter is the program of an environment: --python as given, else
// the prefix's bin/python3 or bin/python. A user site has none.
func (p *prober) interpreter(py *host.Python) string {
	if py.Source == "--python" && p.opts.Python != "" {
		return p.opts.Python
	}
	if py.Kind == host.KindUser {
		return ""
	}
	for _, n := range []string{"bin/python3", "bin/python"} {
		if c := path.Join(py.Prefix, n); p.fs.exists(c) {
			return c
		}
	}
	return ""
}

// runtime runs DeepScript in py's interpreter; nil when it gave no
// answer (a note then says why).
func (p *prober) runtime(ctx context.Context, py *host.Python) *host.Runtime {
	interp := p.interpreter(py)
	if interp == "" {
		p.note(probeInterpreter, "%s has no bin/python3 or bin/python: its runtime facts are missing", py.Prefix)
		return nil
	}
	out, code, ok := p.runFor(ctx, p.opts.DeepTimeout, probeInterpreter, interp,
		"importing the frameworks or initialising CUDA hung", interp, "-c", DeepScript)
	if !ok {
		return nil
	}
	if code != 0 {
		p.note(probeInterpreter, "%s exited with status %d: %s", interp, code, lastLine(out))
		return nil
	}
	rt, err := parseRuntime(out)
	if err != nil {
		p.note(probeInterpreter, "%s printed no runtime facts: %v", interp, err)
		return nil
	}
	rt.Interpreter = interp
	return rt
}

// lastLine is the last non-empty line of out (a Python traceback ends
// with the exception), for notes.
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return firstLine([]byte(lines[len(lines)-1]))
}

type rawRuntime struct {
	Python string `json:"python"`
	Torch  *struct {
		Version     string          `json:"version"`
		CUDA        *string         `json:"cuda"`
		CUDNN       *int            `json:"cudnn"`
		CUDNNError  string          `json:"cudnn_error"`
		Available   *bool           `json:"available"`
		CUDAError   string          `json:"cuda_error"`
		DeviceCount *int            `json:"device_count"`
		ArchList    []string        `json:"arch_list"`
		Devices     []rawDevice     `json:"devices"`
		NCCL        json.RawMessage `json:"nccl"`
		KernelError string          `json:"kernel_error"`
		Error       string          `json:"error"`
	} `json:"torch"`
	TensorFlow *struct {
		Version     string `json:"version"`
		CUDA        any    `json:"cuda"`
		CUDNN       any    `json:"cudnn"`
		IsCUDABuild *bool  `json:"is_cuda_build"`
		GPUs        *int   `json:"gpus"`
		Error       string `json:"error"`
	} `json:"tensorflow"`
	JAX *struct {
		Version string `json:"version"`
		Devices []struct {
			Platform string `json:"platform"`
			Kind     string `json:"kind"`
		} `json:"devices"`
		Error string `json:"error"`
	} `json:"jax"`
}

type rawDevice struct {
	Name string `json:"name"`
	CC   []int  `json:"cc"`
}

var cudnnRuntimeErr = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`found runtime version \((\d+),\s*(\d+),\s*(\d+)\)`)
})

// parseRuntime reads DeepScript's output: the last line that is a JSON
// object (imports may print before it).
func parseRuntime(out []byte) (*host.Runtime, error) {
	var line []byte
	for _, l := range bytes.Split(out, []byte("\n")) {
		if l = bytes.TrimSpace(l); bytes.HasPrefix(l, []byte("{")) {
			line = l
		}
	}
	var raw rawRuntime
	if line == nil {
		return nil, errNoJSON
	}
	if err := json.Unmarshal(line, &raw); err != nil {
		return nil, err
	}
	rt := &host.Runtime{Source: host.RuntimeInterpreter, Python: raw.Python}
	if t := raw.Torch; t != nil {
		tr := &host.TorchRuntime{Version: t.Version, CUDNNError: t.CUDNNError, CUDAAvailable: t.Available,
			CUDAError: t.CUDAError, DeviceCount: t.DeviceCount, ArchList: t.ArchList, KernelError: t.KernelError, Error: t.Error}
		if t.CUDA != nil {
			tr.CUDA = *t.CUDA
		}
		if t.CUDNN != nil {
			tr.CUDNNRaw = strconv.Itoa(*t.CUDNN)
			tr.CUDNN = host.CUDNNFromInt(*t.CUDNN)
		} else if m := cudnnRuntimeErr().FindStringSubmatch(t.CUDNNError); m != nil {
			// torch refuses a mismatched copy but names the one it found.
			tr.CUDNN = m[1] + "." + m[2] + "." + m[3]
		}
		for i, d := range t.Devices {
			rd := host.RuntimeDevice{Index: i, Name: d.Name}
			if len(d.CC) == 2 {
				rd.ComputeCapability = strconv.Itoa(d.CC[0]) + "." + strconv.Itoa(d.CC[1])
			}
			tr.Devices = append(tr.Devices, rd)
		}
		tr.NCCL = ncclVersion(t.NCCL)
		rt.Torch = tr
	}
	if t := raw.TensorFlow; t != nil {
		rt.TensorFlow = &host.TFRuntime{Version: t.Version, CUDA: anyString(t.CUDA), CUDNN: anyString(t.CUDNN),
			IsCUDABuild: t.IsCUDABuild, GPUs: t.GPUs, Error: t.Error}
	}
	if j := raw.JAX; j != nil {
		jr := &host.JAXRuntime{Version: j.Version, Error: j.Error}
		for _, d := range j.Devices {
			jr.Devices = append(jr.Devices, host.JAXDevice{Platform: d.Platform, Kind: d.Kind})
		}
		rt.JAX = jr
	}
	return rt, nil
}

type deepError string

func (e deepError) Error() string { return string(e) }

const errNoJSON = deepError("no JSON line in its output")

// ncclVersion reads torch.cuda.nccl.version(): a tuple since torch 1.13,
// an integer code before (2708 → 2.7.8; 21003 → 2.10.3 from NCCL 2.9).
func ncclVersion(b json.RawMessage) string {
	var parts []int
	if json.Unmarshal(b, &parts) == nil && len(parts) > 0 {
		s := make([]string, len(parts))
		for i, n := range parts {
			s[i] = strconv.Itoa(n)
		}
		return strings.Join(s, ".")
	}
	var n int
	if json.Unmarshal(b, &n) != nil || n <= 0 {
		return ""
	}
	if n >= 10000 {
		return strconv.Itoa(n/10000) + "." + strconv.Itoa(n%10000/100) + "." + strconv.Itoa(n%100)
	}
	return strconv.Itoa(n/1000) + "." + strconv.Itoa(n%1000/100) + "." + strconv.Itoa(n%100)
}

// anyString reads build_info values, which are strings or numbers.
func anyString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}
