package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

func fleetFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "fleet", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFleetDaemonSet decodes the DaemonSet strictly with the Kubernetes
// API types (an unknown or misspelt field fails) and checks that it runs
// on GPU nodes only and writes cudb verify's metrics into the textfile
// directory through a rename.
func TestFleetDaemonSet(t *testing.T) {
	var ds appsv1.DaemonSet
	if err := yaml.UnmarshalStrict(fleetFile(t, "daemonset.yaml"), &ds); err != nil {
		t.Fatalf("daemonset.yaml does not decode strictly as apps/v1 DaemonSet: %v", err)
	}
	if ds.APIVersion != "apps/v1" || ds.Kind != "DaemonSet" {
		t.Errorf("apiVersion/kind = %s/%s", ds.APIVersion, ds.Kind)
	}
	spec := ds.Spec.Template.Spec
	if spec.NodeSelector["nvidia.com/gpu.present"] != "true" {
		t.Errorf("not restricted to GPU nodes: nodeSelector %v", spec.NodeSelector)
	}
	for k, v := range ds.Spec.Selector.MatchLabels {
		if ds.Spec.Template.Labels[k] != v {
			t.Errorf("selector %s=%s does not match the pod labels %v", k, v, ds.Spec.Template.Labels)
		}
	}
	if len(spec.Containers) != 1 {
		t.Fatalf("%d containers", len(spec.Containers))
	}
	c := spec.Containers[0]
	script := strings.Join(append(c.Command, c.Args...), " ")
	for _, want := range []string{"cudb verify", "--expect-gpu", "--format prometheus", "--root /host", "/textfile/cudb.prom.tmp", "mv /textfile/cudb.prom.tmp /textfile/cudb.prom"} {
		if !strings.Contains(script, want) {
			t.Errorf("container command lacks %q: %s", want, script)
		}
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	paths := map[string]string{}
	for _, v := range spec.Volumes {
		if v.HostPath == nil {
			t.Errorf("volume %s is not a hostPath", v.Name)
			continue
		}
		paths[v.Name] = v.HostPath.Path
	}
	if mounts["textfile"] != "/textfile" || paths["textfile"] != "/var/lib/node_exporter/textfile" || mounts["host"] != "/host" || paths["host"] != "/" {
		t.Errorf("mounts %v, host paths %v", mounts, paths)
	}
}

// TestFleetSystemdUnits checks the service and timer: every line a
// section, a comment or Key=Value, and the service writing the textfile
// through a rename with exit 3 (findings) counted as success.
func TestFleetSystemdUnits(t *testing.T) {
	units := map[string]map[string]string{}
	for _, name := range []string{"cudb-verify.service", "cudb-verify.timer"} {
		keys := map[string]string{}
		section := ""
		sc := bufio.NewScanner(bytes.NewReader(fleetFile(t, name)))
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			switch {
			case line == "" || strings.HasPrefix(line, "#"):
			case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
				section = strings.Trim(line, "[]")
			default:
				k, v, ok := strings.Cut(line, "=")
				if !ok || section == "" {
					t.Fatalf("%s:%d: not Key=Value in a section: %q", name, n, line)
				}
				keys[section+"."+k] = v
			}
		}
		units[name] = keys
	}
	svc, timer := units["cudb-verify.service"], units["cudb-verify.timer"]
	if svc["Service.Type"] != "oneshot" || svc["Service.SuccessExitStatus"] != "3" ||
		!strings.Contains(svc["Service.ExecStart"], "cudb verify --quiet --expect-gpu --format prometheus") ||
		!strings.Contains(svc["Service.ExecStart"], `mv "$TEXTFILE_DIR/cudb.prom.tmp" "$TEXTFILE_DIR/cudb.prom"`) ||
		svc["Service.Environment"] != "TEXTFILE_DIR=/var/lib/node_exporter/textfile" {
		t.Errorf("service: %v", svc)
	}
	// A host where node_exporter has not made the folder yet: "-" lets the
	// sandbox start without it, and the "+" pre-command (outside the
	// sandbox) makes it.
	if rw := svc["Service.ReadWritePaths"]; rw != "-/var/lib/node_exporter/textfile" {
		t.Errorf("ReadWritePaths=%s: without the - prefix the unit fails where the folder does not exist", rw)
	}
	if pre := svc["Service.ExecStartPre"]; !strings.HasPrefix(pre, "+") || !strings.Contains(pre, "mkdir -p ${TEXTFILE_DIR}") {
		t.Errorf("ExecStartPre=%s: the textfile folder is not made outside the sandbox", pre)
	}
	if timer["Timer.OnUnitActiveSec"] == "" || timer["Install.WantedBy"] != "timers.target" {
		t.Errorf("timer: %v", timer)
	}
	if path, err := exec.LookPath("systemd-analyze"); err == nil {
		t.Logf("systemd-analyze at %s (not run: it needs the binary at /usr/local/bin)", path)
	}
}

// TestFleetTextfileAndAlerts runs cudb verify --format prometheus on real
// reports, parses the output with Prometheus's text-format parser, and
// checks that every category the sample alerts watch is a series there.
func TestFleetTextfileAndAlerts(t *testing.T) {
	bin := buildBinary(t)
	var rules struct {
		Groups []struct {
			Name  string `json:"name"`
			Rules []struct {
				Alert       string            `json:"alert"`
				Expr        string            `json:"expr"`
				For         string            `json:"for"`
				Labels      map[string]string `json:"labels"`
				Annotations map[string]string `json:"annotations"`
			} `json:"rules"`
		} `json:"groups"`
	}
	if err := yaml.UnmarshalStrict(fleetFile(t, "alerts.yaml"), &rules); err != nil {
		t.Fatalf("alerts.yaml: %v", err)
	}
	watched := map[string]bool{}
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" || r.Expr == "" || r.Annotations["summary"] == "" {
				t.Errorf("rule %+v lacks alert, expr or summary", r)
			}
			if _, cat, ok := strings.Cut(r.Expr, `category="`); ok {
				watched[strings.SplitN(cat, `"`, 2)[0]] = true
			}
		}
	}
	for _, want := range []string{"driver_too_old", "no_gpu_visible", "gpu_arch_unsupported"} {
		if !watched[want] {
			t.Errorf("no alert on %s", want)
		}
	}

	reports := filepath.Join("..", "..", "internal", "host", "report", "testdata")
	for _, tc := range []struct {
		report  string
		firing  string // the category with a non-zero count
		healthy float64
	}{
		{"sm120_error.txt", "gpu_arch_unsupported", 0},
		{"collect_env_new.txt", "", 1},
	} {
		cmd := exec.Command(bin, "verify", "--format", "prometheus", "--from", filepath.Join(reports, tc.report))
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 3) {
			t.Fatalf("%s: %v", tc.report, err)
		}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := parser.TextToMetricFamilies(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("%s: the textfile does not parse: %v\n%s", tc.report, err, out)
		}
		h := fams["cudb_verify_healthy"]
		if h == nil || len(h.Metric) != 1 || h.Metric[0].GetGauge().GetValue() != tc.healthy {
			t.Errorf("%s: cudb_verify_healthy = %v, want %v", tc.report, h, tc.healthy)
		}
		f := fams["cudb_verify_findings"]
		if f == nil {
			t.Fatalf("%s: no cudb_verify_findings", tc.report)
		}
		seen := map[string]float64{}
		for _, m := range f.Metric {
			labels := map[string]string{}
			for _, l := range m.Label {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["severity"] == "error" {
				seen[labels["category"]] = m.GetGauge().GetValue()
			}
		}
		for cat := range watched {
			v, ok := seen[cat]
			if !ok {
				t.Errorf("%s: no error series for %s: the alert could never fire", tc.report, cat)
			}
			if want := cat == tc.firing; (v > 0) != want {
				t.Errorf("%s: %s = %v", tc.report, cat, v)
			}
		}
	}
}
