package site

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/pin"
)

// selectorCase is one set of selections on install.html.
type selectorCase struct {
	fw, v, os, pm, gpu, driver string
	fw2, v2                    string // a second framework, sharing the environment
}

// query is the selection as the page writes it into its link.
func (c selectorCase) query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"fw": c.fw, "v": c.v, "os": c.os, "pm": c.pm, "gpu": c.gpu, "driver": c.driver,
		"fw2": c.fw2, "v2": c.v2} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// channel and format are the resolve channel and pin format of c's
// package manager.
func (c selectorCase) channel() string {
	if c.pm == "conda" {
		return "conda"
	}
	return "pip"
}

func (c selectorCase) format() string {
	switch c.pm {
	case "conda":
		return "conda"
	case "uv":
		return "uv"
	}
	return "requirements"
}

// selectorPage drives install.html in headless Chromium the way a user
// does: options picked from the drop-downs, radio buttons clicked, the
// driver typed key by key.
type selectorPage struct {
	t *testing.T
	// ctx is the browser tab: chromedp addresses a tab through its
	// context, so the page keeps it as its handle.
	ctx     context.Context //nolint:containedctx // chromedp's tab handle
	mu      sync.Mutex
	console []string
	cur     selectorCase
}

func openSelector(t *testing.T, bin, pageURL string) *selectorPage {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 1400))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelA() })
	p := &selectorPage{t: t, ctx: ctx}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == chromedp.ConsoleError && !strings.Contains(m.URL, "favicon.ico") {
				p.mu.Lock()
				p.console = append(p.console, m.String())
				p.mu.Unlock()
			}
		}
	}()
	if err := chromedp.Do(ctx, chromedp.Navigate(pageURL), chromedp.WaitVisible(chromedp.CSS("body[data-install-ready]"))); err != nil {
		t.Fatalf("loading %s: %v", pageURL, err)
	}
	p.cur = selectorCase{os: "linux", pm: "pip"}
	return p
}

// consoleErrors returns the page's errors since the last call.
func (p *selectorPage) consoleErrors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.console
	p.console = nil
	return out
}

// pick changes a drop-down as a user does: the option is chosen and the
// browser's change event fires.
func pick(id, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.SetValue(chromedp.ID(id), value),
		chromedp.Evaluate[chromedp.Void](`document.getElementById(`+jsString(id)+`).dispatchEvent(new Event("change", {bubbles: true}))`))
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// selectCase moves the page from its current selection to c, changing
// only what differs, and waits for the answer.
func (p *selectorPage) selectCase(c selectorCase) {
	p.t.Helper()
	var steps []chromedp.Action[chromedp.Void]
	if c.fw != p.cur.fw {
		steps = append(steps, pick("sel-fw", c.fw))
	}
	if c.fw2 != p.cur.fw2 || c.fw != p.cur.fw {
		steps = append(steps, pick("sel-fw2", c.fw2))
	}
	if c.v != p.cur.v || c.fw != p.cur.fw || c.fw2 != p.cur.fw2 {
		steps = append(steps, pick("sel-v", c.v))
	}
	if c.fw2 != "" && (c.v2 != p.cur.v2 || c.fw2 != p.cur.fw2 || c.fw != p.cur.fw) {
		steps = append(steps, pick("sel-v2", c.v2))
	}
	if c.os != p.cur.os {
		steps = append(steps, chromedp.Click(chromedp.ID("os-"+c.os)))
	}
	if c.pm != p.cur.pm {
		steps = append(steps, chromedp.Click(chromedp.ID("pm-"+c.pm)))
	}
	if c.gpu != p.cur.gpu {
		steps = append(steps, pick("sel-gpu", c.gpu))
	}
	if c.driver != p.cur.driver {
		// Select what the box holds and type over it; Backspace empties it.
		steps = append(steps, chromedp.Click(chromedp.ID("sel-driver")),
			chromedp.Evaluate[chromedp.Void](`document.getElementById("sel-driver").select()`),
			chromedp.SendKeys(chromedp.ID("sel-driver"), kb.Backspace))
		if c.driver != "" {
			steps = append(steps, chromedp.SendKeys(chromedp.ID("sel-driver"), c.driver))
		}
	}
	want := c.query().Encode()
	steps = append(steps, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		_, err := chromedp.PollFunction[bool](`(want) => {
			const s = document.getElementById("install-answer");
			if (s.hasAttribute("data-loading")) return false;
			const got = new URLSearchParams(s.getAttribute("data-query") || ""); got.sort();
			const w = new URLSearchParams(want); w.sort();
			return got.toString() === w.toString();
		}`, chromedp.WithPollingArgs(want))(ctx, t)
		return err
	}))
	if err := chromedp.Do(p.ctx, steps...); err != nil {
		shown, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.getElementById("install-answer").getAttribute("data-query")`))
		p.t.Fatalf("%+v: the page did not come to this selection (it shows %q): %v", c, shown, err)
	}
	p.cur = c
}

// shown is what the page answers.
type shown struct {
	Attr    map[string]string `json:"attr"`
	Command string            `json:"command"`
	Pin     string            `json:"pin"`
	// PinRefused is the shown refusal (why there is no pin file);
	// PinFileShown whether the file block is on the page.
	PinRefused   string   `json:"pin_refused"`
	PinFileShown bool     `json:"pin_file_shown"`
	PinCmd       string   `json:"pin_cmd"`
	Request      string   `json:"request"`
	Status       string   `json:"status"`
	Reasons      []string `json:"reasons"`
	Conflicts    []string `json:"conflicts"`
}

func (p *selectorPage) read() shown {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[shown](`(() => {
		const s = document.getElementById("install-answer"), attr = {};
		for (const a of s.attributes) attr[a.name.replace(/^data-/, "")] = a.value;
		const text = (id) => document.getElementById(id).textContent;
		return {attr, command: text("ans-command"), pin: text("ans-pin"), pin_cmd: text("ans-pin-cmd"),
			pin_refused: document.getElementById("ans-pin-refused").hidden ? "" : text("ans-pin-refused"),
			pin_file_shown: !document.getElementById("ans-pin-file").hidden,
			request: text("ans-request"), status: text("ans-status"),
			reasons: Array.from(document.querySelectorAll("#ans-reasons li"), (li) => li.textContent),
			conflicts: Array.from(document.querySelectorAll("#ans-conflicts li"), (li) => li.textContent)};
	})()`))
	if err != nil {
		p.t.Fatal(err)
	}
	return s
}

func (p *selectorPage) screenshot(name string) {
	p.t.Helper()
	dir := os.Getenv("CUDB_ARTIFACTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(p.ctx, chromedp.Screenshot(chromedp.CSS("main")))
	if err != nil {
		p.t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.t.Logf("screenshot %s", filepath.Join(dir, name))
}

// belowDriver and aboveDriver are drivers just under and just over v.
func belowDriver(v string) string {
	f := strings.Split(v, ".")
	for i := len(f) - 1; i >= 0; i-- {
		if n, _ := strconv.Atoi(f[i]); n > 0 {
			f[i] = strconv.Itoa(n - 1)
			for j := i + 1; j < len(f); j++ {
				f[j] = "99"
			}
			if len(f) == 1 {
				f = append(f, "99")
			}
			return strings.Join(f, ".")
		}
	}
	return v
}

func aboveDriver(v string) string {
	if strings.Count(v, ".") < 3 {
		return v + ".1"
	}
	return v
}

// selectorDB is the site fixture with the driver floors NVIDIA's CUDA
// release notes give, so the driver box has something to judge.
func selectorDB(t *testing.T) *db.DB { return testDBWith(t, selectorFacts) }

// selectorFacts adds selectorDB's facts to the fixture.
func selectorFacts(f *db.Facts) {
	p := db.Provenance{Source: "fixture", URL: "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/"}
	for _, r := range [][4]string{{"11.3.0", "toolkit", "465.19.01", "465.89"}, {"11.7.0", "toolkit", "515.43.04", "516.01"},
		{"11.8.0", "toolkit", "520.61.05", "520.06"}, {"12.1.0", "toolkit", "530.30.02", "531.14"},
		{"12.4.0", "toolkit", "550.54.14", "551.61"}, {"11", "minor_compat", "450.80.02", "452.39"}, {"12", "minor_compat", "525.60.13", "527.41"}} {
		f.CUDADrivers = append(f.CUDADrivers, db.CUDADriver{CUDA: r[0], OS: "linux", Kind: r[1], MinDriver: r[2], Provenance: p},
			db.CUDADriver{CUDA: r[0], OS: "windows", Kind: r[1], MinDriver: r[3], Provenance: p})
	}
	// A release whose cuDNN the data lacks: its answer is "unknown".
	q := db.Provenance{Source: "fixture", URL: "https://example.test/ort", Ref: "ort row"}
	k := db.BuildKey{Component: "onnxruntime-gpu", Version: "1.99.0", Variant: "cuda12", Platform: "linux"}
	f.Releases = append(f.Releases, db.Release{Component: k.Component, Version: k.Version, Provenance: q})
	f.Builds = append(f.Builds, db.Build{Component: k.Component, Version: k.Version, Variant: k.Variant, Platform: k.Platform, CUDA: "12.4", Provenance: q})
	f.Requirements = append(f.Requirements, db.Requirement{Build: k, Needs: "cuda", Kind: db.KindTested, Spec: "12.4", Provenance: q})
}

// TestInstallSelectorInChromium serves the generated site on loopback,
// clicks and types through install.html in headless Chromium and checks
// every answer against query.Resolve and pin.Pins for the same inputs:
// the stack, the install command, the pin file (byte for byte, header
// included) and the refusals.
func TestInstallSelectorInChromium(t *testing.T) {
	bin := chromium(t)
	ctx := context.Background()
	d := selectorDB(t)
	out := t.TempDir()
	if _, err := Generate(ctx, d, out); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(out)))
	defer srv.Close()

	sel, err := BuildSelector(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	var cases []selectorCase
	for _, f := range sel.Frameworks {
		for _, v := range f.Versions {
			cases = append(cases, selectorCase{fw: f.Name, v: v, os: "linux", pm: "pip"})
		}
		cases = append(cases, selectorCase{fw: f.Name, v: f.Versions[0], os: "windows", pm: "uv"},
			// A GPU where the build's kernel list is not in the data: the
			// stack becomes unknown, and pin refuses it.
			selectorCase{fw: f.Name, v: f.Versions[0], os: "linux", pm: "uv", gpu: "Tesla T4"})
	}
	for _, v := range []string{"2.4.0", "2.1.0"} {
		cases = append(cases, selectorCase{fw: "torch", v: v, os: "linux", pm: "pip", gpu: "Tesla K80"},
			selectorCase{fw: "torch", v: v, os: "linux", pm: "uv", gpu: "Tesla T4"},
			selectorCase{fw: "torch", v: v, os: "windows", pm: "pip", gpu: "NVIDIA A100"},
			selectorCase{fw: "torch", v: v, os: "linux", pm: "pip", gpu: "NVIDIA B200"})
	}
	// Every driver range on both sides of its edge, typed, plus forms the
	// CLI accepts or refuses.
	for _, os := range []string{"linux", "windows"} {
		breaks := sel.Driver.OS[os].Breaks
		if len(breaks) < 2 {
			t.Fatalf("%s: %d driver ranges, want at least 3", os, len(breaks)+1)
		}
		for _, b := range breaks {
			for _, drv := range []string{belowDriver(b), b, aboveDriver(b)} {
				cases = append(cases, selectorCase{fw: "torch", v: "2.1.0", os: os, pm: "pip", driver: drv})
			}
		}
		cases = append(cases, selectorCase{fw: "torch", v: "2.1.0", os: os, pm: "uv", driver: breaks[len(breaks)-1], gpu: "Tesla T4"},
			selectorCase{fw: "torch", v: "2.1.0", os: os, pm: "pip", driver: "r" + breaks[0]},
			selectorCase{fw: "torch", v: "2.1.0", os: os, pm: "pip", driver: "999"},
			selectorCase{fw: "torch", v: "2.1.0", os: os, pm: "pip", driver: "99.1"},
			selectorCase{fw: "torch", v: "2.1.0", os: os, pm: "pip", driver: "535.x"})
	}
	cases = append(cases, selectorCase{fw: "torch", v: "1.10.2", os: "linux", pm: "conda", gpu: "Tesla K80"},
		selectorCase{fw: "torch", v: "1.10.2", os: "linux", pm: "conda", driver: "470.57.02"})

	page := openSelector(t, bin, srv.URL+"/install.html")
	var n selectorTally
	for i, c := range cases {
		page.selectCase(c)
		n.check(t, ctx, d, c, page.read())
		if errs := page.consoleErrors(); len(errs) > 0 {
			t.Errorf("%+v: console errors:\n%s", c, strings.Join(errs, "\n"))
		}
		if i == 0 || c.gpu == "Tesla T4" && c.os == "linux" && c.v == "2.4.0" {
			page.screenshot(fmt.Sprintf("install-%d.png", i))
		}
	}
	answered, refused, dropped, pinned, pinRefused := n.answered, n.refused, n.dropped, n.pinned, n.pinRefused
	t.Logf("%d selections: %d answered (%d pin files, %d pin refusals), %d refused, %d with builds ruled out; statuses %v",
		len(cases), answered, pinned, pinRefused, refused, dropped, n.statuses)
	if n.statuses["ok"] == 0 || n.statuses["unknown"] == 0 {
		t.Errorf("statuses shown %v: the check needs an ok and an unknown answer", n.statuses)
	}
	if dropped == 0 || refused == 0 || pinned < 5 || pinRefused == 0 {
		t.Errorf("no selection ruled a build out (%d), was refused (%d) or had its pin refused (%d), or too few pin files were compared (%d)",
			dropped, refused, pinRefused, pinned)
	}
	if answered < 5 {
		t.Errorf("only %d selections gave a stack; the check needs at least 5", answered)
	}
}

// TestInstallSelectorLink: a shared link selects what it names, and a
// value the page does not offer falls back rather than breaking it.
func TestInstallSelectorLink(t *testing.T) {
	bin := chromium(t)
	d := selectorDB(t)
	out := t.TempDir()
	if _, err := Generate(context.Background(), d, out); err != nil {
		t.Fatal(err)
	}
	// Straight from the folder: the release files load over file:// too.
	base := "file://" + filepath.ToSlash(filepath.Join(out, "install.html"))
	c := selectorCase{fw: "torch", v: "2.1.0", os: "windows", pm: "uv", gpu: "Tesla T4", driver: "531.14"}
	page := openSelector(t, bin, base+"?"+c.query().Encode())
	page.cur = c
	page.selectCase(c) // nothing to change: waits for the answer
	got := page.read()
	if got.Attr["status"] == "error" || !strings.Contains(got.Pin, "--driver 531.14 --gpu 'Tesla T4' --format uv") {
		t.Errorf("the linked selection shows %q and pin file\n%s", got.Status, got.Pin)
	}
	if errs := page.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// selectorTally counts what the checked selections exercised.
type selectorTally struct {
	answered, refused, dropped, pinned, pinRefused int
	conflicts                                      int            // selections resolve answers with conflicts (exit 3)
	statuses                                       map[string]int // best stack's status → selections
}

// check compares what the page shows for c with query.Resolve and
// pin.Pins (the code of cudb resolve and cudb pin) for the same inputs.
func (n *selectorTally) check(t *testing.T, ctx context.Context, d *db.DB, c selectorCase, got shown) {
	t.Helper()
	req := query.ResolveRequest{Requirements: c.requirements(), Platform: c.os, Channel: c.channel(), GPU: c.gpu, Driver: c.driver}
	res, err := query.Resolve(ctx, d, req)
	preq := req
	if c.pm != "conda" {
		preq.Channel = ""
	}
	pinned, perr := pin.Pins(ctx, d, preq, c.format(), pin.PinOptions{})
	if want := "cudb resolve " + strings.Join(req.Requirements, " ") + " "; !strings.HasPrefix(got.Request, want) && got.Request != "" {
		t.Errorf("%+v: the page names the command %q, want it to start %q", c, got.Request, want)
	}
	if err == nil && len(res.Conflicts) > 0 {
		n.checkConflicts(t, c, res, perr, got)
		return
	}
	if err != nil || len(res.Stacks) == 0 {
		n.refused++
		if got.Attr["status"] != "error" || got.Attr["command"] != "" || got.Attr["pin"] != "none" || got.Status == "" {
			t.Errorf("%+v: resolve says %v, the page shows status %q (%q), command %q, pin %q", c, err, got.Attr["status"], got.Status, got.Attr["command"], got.Attr["pin"])
		}
		// No file: the page says why, and shows no empty file.
		if got.PinFileShown || got.PinRefused == "" {
			t.Errorf("%+v: no stack, the page shows the pin file block %v and refusal %q", c, got.PinFileShown, got.PinRefused)
		}
		if perr == nil {
			t.Errorf("%+v: resolve refuses but pin wrote a file", c)
		}
		return
	}
	n.answered++
	best := res.Stacks[0]
	for k, want := range map[string]string{"command": best.Install.Command, "variant": best.Variant, "cuda": best.CUDA,
		"cudnn": best.CUDNN, "status": best.Status} {
		if got.Attr[k] != want {
			t.Errorf("%+v: page %s = %q, resolve's best stack has %q", c, k, got.Attr[k], want)
		}
	}
	if c.pm != "uv" && got.Command != best.Install.Command {
		t.Errorf("%+v: shown command %q, want %q", c, got.Command, best.Install.Command)
	}
	// The three-valued verdict is shown, not only carried in data-*,
	// and every gap of an unknown stack is named.
	if n.statuses == nil {
		n.statuses = map[string]int{}
	}
	n.statuses[best.Status]++
	for _, u := range best.Unknown {
		if !slices.Contains(got.Reasons, "unknown: "+u) {
			t.Errorf("%+v: the page does not name the gap %q (reasons %q)", c, u, got.Reasons)
		}
	}
	if want := "status: " + best.Status; got.Status != want {
		t.Errorf("%+v: shown %q, want %q", c, got.Status, want)
	}
	switch {
	case perr != nil:
		n.pinRefused++
		// The refusal and its reason are shown, never an empty file, and
		// uv's install line does not point at a file that is not there.
		if got.Attr["pin"] != "refused" || got.PinRefused == "" || got.PinFileShown || got.Pin != "" {
			t.Errorf("%+v: pin refuses (%v), the page shows pin %q, refusal %q, file block %v: %q", c, perr, got.Attr["pin"], got.PinRefused, got.PinFileShown, got.Pin)
		}
		if c.pm == "uv" && (strings.Contains(got.Command, "below") || !strings.Contains(got.Command, "no pyproject.toml")) {
			t.Errorf("%+v: pin refuses, the uv install line says %q", c, got.Command)
		}
	default:
		n.pinned++
		if !got.PinFileShown || got.PinRefused != "" {
			t.Errorf("%+v: a pin file, but the page hides it (%v) or shows a refusal %q", c, got.PinFileShown, got.PinRefused)
		}
		if got.Pin != pinned.Content {
			t.Errorf("%+v: the page's %s file differs from cudb pin's:\n--- page\n%s\n--- cudb pin\n%s", c, c.format(), got.Pin, pinned.Content)
		}
		if cmd, _, _ := strings.Cut(got.PinCmd, " > "); !strings.HasPrefix(pinned.Content, "# "+cmd+"\n") {
			t.Errorf("%+v: the page names the pin command %q, the file says %q", c, got.PinCmd, strings.SplitN(pinned.Content, "\n", 2)[0])
		}
	}
	if got.Attr["dropped"] != "0" {
		n.dropped++
		k := 0
		for _, r := range got.Reasons {
			if strings.Contains(r, ": not chosen: ") {
				k++
			}
		}
		if want := got.Attr["dropped"]; strconv.Itoa(k) != want {
			t.Errorf("%+v: %s builds ruled out, %d reasons listed: %q", c, want, k, got.Reasons)
		}
	}
}
