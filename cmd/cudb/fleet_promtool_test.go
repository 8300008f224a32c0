package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/probe/probetest"
	"github.com/cudb/cudb/internal/testenv"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// fleetVerifyArgs returns the arguments each fleet manifest passes to
// `cudb verify` (what follows "cudb verify" up to the redirection), read
// from the manifests themselves.
func fleetVerifyArgs(t *testing.T) map[string][]string {
	t.Helper()
	cut := func(script string) []string {
		_, after, ok := strings.Cut(script, "cudb verify ")
		if !ok {
			t.Fatalf("no cudb verify in %q", script)
		}
		line, _, _ := strings.Cut(after, ">")
		return strings.Fields(line)
	}
	var ds appsv1.DaemonSet
	if err := yaml.UnmarshalStrict(fleetFile(t, "daemonset.yaml"), &ds); err != nil {
		t.Fatal(err)
	}
	c := ds.Spec.Template.Spec.Containers[0]
	out := map[string][]string{"daemonset.yaml": cut(strings.Join(append(c.Command, c.Args...), " "))}
	for _, line := range strings.Split(string(fleetFile(t, "cudb-verify.service")), "\n") {
		if strings.HasPrefix(line, "ExecStart=") {
			out["cudb-verify.service"] = cut(line)
		}
	}
	return out
}

// TestFleetAlertsFire runs the verify command line of each fleet manifest
// (the DaemonSet's and the systemd unit's, read from the files) on fake
// hosts, feeds the textfile it writes to Prometheus's own rule tester
// (`promtool test rules`, Debian's prometheus package) with the shipped
// alerts.yaml, and checks which alerts fire: CudbNoGPUVisible on the host
// whose container runtime hides the GPU (the driver's libraries inside, no
// device nodes, no kernel module), nothing on a healthy host.
func TestFleetAlertsFire(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		msg := "promtool not found (Debian: apt-get install prometheus; .ci/run installs it under CI=true)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	rules, err := filepath.Abs(filepath.Join("..", "..", "docs", "fleet", "alerts.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(promtool, "check", "rules", rules).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
	bin := buildBinary(t)
	alerts := []string{"CudbDriverTooOld", "CudbNoGPUVisible", "CudbGPUArchUnsupported", "CudbVerifyStale"}
	hosts := filepath.Join("..", "..", "internal", "probe", "testdata", "hosts")
	// The real H100 host (../shared), as its probe JSON: a healthy GPU
	// node, on which --expect-gpu must raise no alert.
	realHost := filepath.Join(testenv.RepoRoot(t), "..", "shared", "fixtures", "gpu-h100-2026-11", "cudb-probe.json")
	for manifest, args := range fleetVerifyArgs(t) {
		for _, tc := range []struct {
			host   string
			firing []string
		}{
			{"no-gpu-container", []string{"CudbNoGPUVisible"}},
			{"healthy", nil},
			{"real-h100", nil},
		} {
			t.Run(manifest+"/"+tc.host, func(t *testing.T) {
				var textfile []byte
				if tc.host == "real-h100" {
					if _, err := os.Stat(realHost); err != nil {
						testenv.SkipNoShared(t, "the real GPU-host capture (fixtures/gpu-h100-2026-11)")
					}
					textfile = runFleetVerifyFrom(t, bin, args, realHost)
				} else {
					h, err := probetest.Load(filepath.Join(hosts, tc.host))
					if err != nil {
						t.Fatal(err)
					}
					textfile = runFleetVerify(t, bin, args, h)
				}
				testFile := writePromtoolTest(t, rules, textfile, alerts, tc.firing)
				out, err := exec.Command(promtool, "test", "rules", testFile).CombinedOutput()
				if err != nil {
					t.Errorf("%s on %s: promtool test rules: %v\n%s\ntextfile:\n%s", manifest, tc.host, err, out, textfile)
				} else {
					t.Logf("%s on %s: firing %v: %s", manifest, tc.host, tc.firing, bytes.TrimSpace(out))
				}
			})
		}
	}
}

// runFleetVerify runs the manifest's verify arguments on fake host h: the
// manifest's --root (the DaemonSet's /host) becomes the host's tree, and
// commands are answered from its recordings (none: not found).
func runFleetVerify(t *testing.T, bin string, args []string, h probetest.Host) []byte {
	t.Helper()
	argv := []string{"verify"}
	for i := 0; i < len(args); i++ {
		if args[i] == "--root" {
			i++
			continue
		}
		argv = append(argv, args[i])
	}
	replay := h.Cmds
	if replay == "" {
		replay = t.TempDir()
	}
	argv = append(argv, "--root", h.Root, "--replay", replay)
	cmd := exec.Command(bin, argv...)
	cmd.Env = []string{"CUDB_NO_DATA_AGE_NOTICE=1", "PATH=" + t.TempDir(), "HOME=" + t.TempDir()}
	for k, v := range h.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 3) {
		t.Fatalf("cudb %s: %v\n%s", strings.Join(argv, " "), err, ee.Stderr)
	}
	return out
}

// runFleetVerifyFrom runs the manifest's verify arguments on a captured
// probe JSON (--from) instead of a host tree.
func runFleetVerifyFrom(t *testing.T, bin string, args []string, from string) []byte {
	t.Helper()
	argv := []string{"verify"}
	for i := 0; i < len(args); i++ {
		if args[i] == "--root" {
			i++
			continue
		}
		argv = append(argv, args[i])
	}
	cmd := exec.Command(bin, append(argv, "--from", from)...)
	cmd.Env = []string{"CUDB_NO_DATA_AGE_NOTICE=1", "PATH=" + t.TempDir(), "HOME=" + t.TempDir()}
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 3) {
		t.Fatalf("cudb %s --from %s: %v\n%s", strings.Join(argv, " "), from, err, ee.Stderr)
	}
	return out
}

// writePromtoolTest turns one textfile into a promtool unit test: every
// sample becomes a constant series of a node (instance, job as
// node_exporter's scrape adds them; the file's mtime advancing each
// minute), and each alert is expected to fire at 20 minutes (past every
// rule's `for`) exactly when it is in firing.
func writePromtoolTest(t *testing.T, rules string, textfile []byte, alerts, firing []string) string {
	t.Helper()
	var rf struct {
		Groups []struct {
			Rules []struct {
				Alert       string            `json:"alert"`
				Annotations map[string]string `json:"annotations"`
			} `json:"rules"`
		} `json:"groups"`
	}
	if err := yaml.Unmarshal(fleetFile(t, "alerts.yaml"), &rf); err != nil {
		t.Fatal(err)
	}
	annotations := map[string]map[string]string{}
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			annotations[r.Alert] = r.Annotations
		}
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(textfile))
	if err != nil {
		t.Fatalf("the textfile does not parse: %v\n%s", err, textfile)
	}
	node := map[string]string{"instance": "gpu-node-1:9100", "job": "node"}
	var series []string
	for name, fam := range fams {
		for _, m := range fam.Metric {
			labels := map[string]string{}
			for k, v := range node {
				labels[k] = v
			}
			for _, l := range m.Label {
				labels[l.GetName()] = l.GetValue()
			}
			series = append(series, fmt.Sprintf("      - series: '%s%s'\n        values: '%gx30'\n", name, promLabels(labels), m.GetGauge().GetValue()))
		}
	}
	sort.Strings(series)
	series = append(series, fmt.Sprintf("      - series: 'node_textfile_mtime_seconds%s'\n        values: '0+60x30'\n",
		promLabels(map[string]string{"instance": node["instance"], "job": node["job"], "file": "/var/lib/node_exporter/textfile/cudb.prom"})))

	var b strings.Builder
	fmt.Fprintf(&b, "rule_files:\n  - %s\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n    input_series:\n", rules)
	b.WriteString(strings.Join(series, ""))
	b.WriteString("    alert_rule_test:\n")
	for _, a := range alerts {
		fmt.Fprintf(&b, "      - eval_time: 20m\n        alertname: %s\n", a)
		if !slices.Contains(firing, a) {
			b.WriteString("        exp_alerts: []\n")
			continue
		}
		// The alert's own labels: the node's, the series', the rule's.
		fmt.Fprintf(&b, "        exp_alerts:\n          - exp_labels:\n              instance: %s\n              job: %s\n", node["instance"], node["job"])
		if a == "CudbNoGPUVisible" {
			b.WriteString("              severity: critical\n              category: no_gpu_visible\n")
		}
		// The annotations as the rule templates them for this node.
		b.WriteString("            exp_annotations:\n")
		for _, k := range []string{"summary", "description"} {
			v := strings.ReplaceAll(annotations[a][k], "{{ $labels.instance }}", node["instance"])
			fmt.Fprintf(&b, "              %s: %q\n", k, v)
		}
	}
	p := filepath.Join(t.TempDir(), "cudb_test.yaml")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// promLabels writes a label set in the series notation, names sorted.
func promLabels(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%q", k, labels[k]))
	}
	return "{" + strings.Join(parts, ",") + "}"
}
