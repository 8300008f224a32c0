package jax

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// A release whose tag and wheel metadata could not be read may still be
// seen installed and working on a real host: the CUDA plugin, PJRT and
// jaxlib of one release installed together, and JAX listing the GPU.
// That says the build exists and which wheels make it, not what it
// requires: no Python range, arch list, cuDNN or minimum comes from it
// (captures/CAPTURES.md).
//
//go:embed captures/host-gpu-h100-2026-11.txt
var hostCapture []byte

const (
	tableHost = "host_report"
	hostRef   = "shared fixture gpu-h100-2026-11 (a real GPU host captured 2026-11-26): pip freeze and jax.print_environment_info()"
)

var (
	reFreeze  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([a-z0-9][a-z0-9._-]*)==(\S+)$`) })
	reHostPy  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^python: (\d+\.\d+)\.\d+\b`) })
	reHostJAX = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(jax|jaxlib):\s+(\S+)$`) })
	reHostDrv = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Driver Version: (\d+\.\d+(?:\.\d+)?)`) })
	reHostGPU = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^device info: (.+?)(?:-\d+)?, \d+ local devices`) })
)

// parseHost reads the captured host lines into one record: the release
// and CUDA variant installed, with what was installed beside it. A capture
// where JAX did not list a CUDA device, or whose packages are not one
// release's, is an error.
func parseHost(src []byte) ([]scraper.Record, error) {
	pins := map[string]string{}
	f := map[string]string{}
	gpuSeen := false
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "# "):
		case reFreeze().MatchString(line):
			m := reFreeze().FindStringSubmatch(line)
			pins[m[1]] = m[2]
		case reHostJAX().MatchString(line):
			m := reHostJAX().FindStringSubmatch(line)
			f["reported_"+m[1]] = m[2]
		case reHostPy().MatchString(line):
			f["python"] = reHostPy().FindStringSubmatch(line)[1]
		case reHostDrv().MatchString(line):
			f["driver"] = reHostDrv().FindStringSubmatch(line)[1]
		case reHostGPU().MatchString(line):
			f["gpu"] = reHostGPU().FindStringSubmatch(line)[1]
		case strings.HasPrefix(line, "[CudaDevice(id="):
			gpuSeen = true
		default:
			return nil, fmt.Errorf("unexpected line %q", line)
		}
	}
	v := pins["jax"]
	if v == "" || pins["jaxlib"] != v || f["reported_jax"] != v || f["reported_jaxlib"] != v {
		return nil, fmt.Errorf("jax %q, jaxlib %q (reported %q, %q) are not one release", v, pins["jaxlib"], f["reported_jax"], f["reported_jaxlib"])
	}
	if !gpuSeen {
		return nil, fmt.Errorf("JAX listed no CUDA device: the capture does not show the build working")
	}
	major := ""
	for name, ver := range pins {
		if m := pluginNameRE().FindStringSubmatch(name); m != nil && strings.HasSuffix(m[1], "-plugin") && ver == v {
			major = m[2]
		}
	}
	if major == "" || pins["jax-cuda"+major+"-pjrt"] != v {
		return nil, fmt.Errorf("no CUDA plugin and PJRT of jax %s installed together", v)
	}
	f["jax_version"], f["cuda_variant"] = v, "cuda"+major
	f["cudnn"], f["nccl"] = pins["nvidia-cudnn-cu"+major], pins["nvidia-nccl-cu"+major]
	delete(f, "reported_jax")
	delete(f, "reported_jaxlib")
	return []scraper.Record{{Table: tableHost, Key: v + "/cuda" + major, Ref: hostRef, Fields: f}}, nil
}

// host makes the build a host report shows, unless a release-tag source
// already describes that release: then the report is only refused (kept
// in db check).
func (n *normalizer) host(recs []scraper.Record) {
	for _, r := range recs {
		f := r.Fields
		ver, err := publicVersion(f["jax_version"])
		if err != nil {
			n.refuse(r, err.Error())
			continue
		}
		if n.releases[ver] {
			n.refuse(r, "the release's own tag and install-page evidence describe it")
			continue
		}
		p := n.prov(r)
		k := n.build(ver, f["cuda_variant"], p)
		// The plugin names its CUDA major only; the host does not show the
		// minor it was built with. A major alone is judged as the
		// tested-build tables' "CUDA 9" rows are: the minor-version-
		// compatibility floor of the major, the newest minor's floor
		// recommended.
		major := strings.TrimPrefix(f["cuda_variant"], "cuda")
		n.f.Builds[n.builds[k]].CUDA = major
		for _, pkg := range []string{"jaxlib", "jax-cuda" + major + "-plugin", "jax-cuda" + major + "-pjrt"} {
			n.req(db.Requirement{Build: k, Needs: pkg, Kind: db.KindPaired, Spec: "==" + ver, Provenance: p})
		}
		// The cuDNN and NCCL wheels beside it are what that host had (torch
		// pinned them), not what jax requires: they stay in the note, never
		// requirements, so verify does not ask another host for them.
		n.attr(db.Attribute{Component: component, Version: ver, Key: "tested_on@" + f["cuda_variant"],
			Value: fmt.Sprintf("Python %s, driver %s, %s (jax.devices() lists the GPU), with nvidia-cudnn-cu%s %s and nvidia-nccl-cu%s %s installed",
				f["python"], f["driver"], f["gpu"], major, f["cudnn"], major, f["nccl"]), Provenance: p})
	}
}
