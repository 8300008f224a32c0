package cli

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/errs"
)

// complete runs cobra's __complete (what the bash, zsh, fish and
// powershell scripts call) through the command tree and returns the
// values offered and the directive line.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	s, out, _ := TestStreams("")
	root := NewRootCmd(NewFactory(s))
	root.SetArgs(append([]string{"__complete"}, args...))
	if err := root.Execute(); err != nil {
		t.Fatalf("__complete %q: %v", args, err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var values []string
	for _, l := range lines[:len(lines)-1] {
		v, _, _ := strings.Cut(l, "\t")
		values = append(values, v)
	}
	return values, lines[len(lines)-1]
}

// accepted runs the command line and reports whether it got past flag
// and value checking: any outcome but a usage error or an unknown GPU
// (a value the data does not know).
func accepted(t *testing.T, args ...string) bool {
	t.Helper()
	s, _, _ := TestStreams("")
	root := NewRootCmd(NewFactory(s))
	root.SetArgs(args)
	err := root.Execute()
	return errs.CodeOf(err) != errs.CodeUsage && (err == nil || !strings.Contains(err.Error(), "unknown GPU"))
}

// TestCompleteValues: the values completion offers come from the data
// and are values the commands take: every GPU name offered resolves as
// --gpu, every CUDA version as --cuda, every compute capability as --sm,
// every platform, format and requirement; and what is typed narrows them.
func TestCompleteValues(t *testing.T) {
	d := embeddedDB(t)
	ctx := context.Background()

	gpus, dir := complete(t, "resolve", "torch==2.1", "--gpu", "")
	all, err := gpuNames(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if len(gpus) < 100 || len(gpus) > len(all) || dir != ":4" {
		t.Errorf("--gpu offers %d values (%q), the data has %d names and aliases", len(gpus), dir, len(all))
	}
	if got, _ := complete(t, "check", "x", "--gpu", "RTX 409"); !slices.Contains(got, "RTX 4090") || slices.ContainsFunc(got, func(v string) bool { return !strings.HasPrefix(v, "RTX 409") }) {
		t.Errorf("--gpu 'RTX 409' offers %q", got)
	}
	if accepted(t, "resolve", "torch==2.5.1", "--gpu", "No Such GPU 9999") || accepted(t, "resolve", "torch", "--cuda", "x.y") || accepted(t, "check", checkFixture, "--sm", "99.9") {
		t.Fatal("the value checks cannot fail: a made-up GPU, CUDA or compute capability is accepted")
	}
	for _, g := range gpus {
		if !accepted(t, "resolve", "torch==2.5.1", "--gpu", g) {
			t.Errorf("--gpu %q is offered but refused", g)
		}
	}
	cudas, _ := complete(t, "resolve", "--cuda", "12.")
	if !slices.Contains(cudas, "12.1") || !slices.Contains(cudas, "12.1.1") || slices.Contains(cudas, "11.8") {
		t.Errorf("--cuda 12. offers %q", cudas)
	}
	for _, c := range cudas {
		if !accepted(t, "resolve", "torch", "--cuda", c) {
			t.Errorf("--cuda %q is offered but refused", c)
		}
	}
	sms, _ := complete(t, "resolve", "--sm", "")
	if !slices.Contains(sms, "8.6") || !slices.Contains(sms, "12.0") {
		t.Errorf("--sm offers %q", sms)
	}
	for _, sm := range sms {
		if !accepted(t, "check", checkFixture, "--sm", sm) {
			t.Errorf("--sm %q is offered but refused", sm)
		}
	}
	for _, cmd := range []string{"resolve", "pin", "check"} {
		platforms, _ := complete(t, cmd, "--platform", "")
		if !slices.Equal(platforms, completePlatforms) {
			t.Errorf("%s --platform offers %q", cmd, platforms)
		}
		for _, p := range platforms {
			args := []string{cmd, "torch==2.5.1", "--platform", p}
			if cmd == "check" {
				args[1] = checkFixture
			}
			if !accepted(t, args...) {
				t.Errorf("%s --platform %s is offered but refused", cmd, p)
			}
		}
	}
	if !accepted(t, "resolve", "torch==2.5.1", "--platform", "linux") || accepted(t, "resolve", "torch==2.5.1", "--platform", "plan9") {
		t.Error("the platform check cannot fail")
	}
	for cmd, want := range completeFormats {
		got, _ := complete(t, cmd, "--format", "")
		if !slices.Equal(got, want) {
			t.Errorf("%s --format offers %q, want %q", cmd, got, want)
		}
	}
	if got, _ := complete(t, "matrix", "gpu", "--arch", "Amp"); !slices.Equal(got, []string{"Ampere"}) {
		t.Errorf("matrix gpu --arch Amp offers %q", got)
	}

	// Requirements: a name with "==" (no space after it), then releases.
	names, dir := complete(t, "pin", "ten")
	if !slices.Equal(names, []string{"tensorflow=="}) || !strings.Contains(dir, ":6") {
		t.Errorf("pin ten offers %q (%s)", names, dir)
	}
	releases, _ := complete(t, "resolve", "torch==2.1")
	for _, want := range []string{"torch==2.1.0", "torch==2.1.1", "torch==2.1.2"} {
		if !slices.Contains(releases, want) {
			t.Errorf("torch==2.1 offers %q, lacks %s", releases, want)
		}
	}
	torch, err := d.Versions(ctx, "torch")
	if err != nil {
		t.Fatal(err)
	}
	if all, _ := complete(t, "resolve", "torch=="); len(all) == 0 || len(all) > len(torch) || all[0] != "torch=="+torch[0] {
		t.Errorf("torch== offers %d releases starting %q; the data has %d, newest %s", len(all), all, len(torch), torch[0])
	}
}
