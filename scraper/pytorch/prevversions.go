package pytorch

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/mdtab"
)

// PreviousVersions reads pytorch.org's "previous versions" page (the
// Markdown source in pytorch/pytorch.github.io): one record per install
// command, under its version, Conda/Wheel and OS headings and its
// "# CUDA X.Y" comment label.
type PreviousVersions struct{}

var prevDoc = doc{
	live: "https://raw.githubusercontent.com/pytorch/pytorch.github.io/site/_get_started/previous-versions.md",
	page: "https://pytorch.org/get-started/previous-versions/",
	snap: "raw/pytorch.github.io__get_started_previous-versions.md@e3f009bb.md",
}

func (PreviousVersions) Name() string { return "pytorch-previous-versions" }
func (PreviousVersions) URL() string  { return prevDoc.page }

func (s PreviousVersions) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	return prevDoc.scrape(ctx, in, "previous versions", parsePreviousVersions)
}

var (
	reCommand = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(conda install|pip3? install|Download and install wheel from)\b`)
	})
	// Helper lines (pip install ninja, vision from git) are not torch builds.
	reInstallsTorch = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s(torch|pytorch|pytorch-cpu)(==|\s|$)`) })
)

// parsePreviousVersions walks the page's headings and fenced blocks. It
// stops at the "< 1.0.0" section, whose free-form wheel lists are not
// release rows.
func parsePreviousVersions(src []byte, ref string) ([]scraper.Record, error) {
	var recs []scraper.Record
	var version, channel, osName string
	seen := map[string]int{}
	versions := 0
walk:
	for _, n := range mdtab.Blocks(src) {
		switch n.Kind {
		case mdtab.KindHeading:
			t := strings.TrimSpace(mdtab.Inline(n.Text, false))
			switch n.Level {
			case 2:
				if strings.Contains(t, "< 1.0") {
					break walk
				}
			case 3:
				version, channel, osName = t, "", ""
				versions++
			case 4:
				channel, osName = t, ""
			case 5:
				osName = t
			}
		case mdtab.KindFence:
			if version == "" {
				continue
			}
			label := ""
			for _, seg := range n.Lines {
				line := strings.TrimSpace(seg.Text)
				switch {
				case line == "":
				case strings.HasPrefix(line, "#"):
					c := strings.TrimSpace(strings.TrimLeft(line, "#"))
					// NOTE lines and channel hints annotate the label above them.
					if strings.HasPrefix(c, "NOTE") || strings.HasPrefix(c, "'") || strings.HasPrefix(c, "Pytorch") {
						continue
					}
					label = c
				case reCommand().MatchString(line) && (strings.HasPrefix(line, "Download") || reInstallsTorch().MatchString(line)):
					lineNo := seg.No
					key := version + "|" + channel + "|" + osName + "|" + label
					seen[key]++
					if seen[key] > 1 {
						key += fmt.Sprintf("|%d", seen[key])
					}
					recs = append(recs, scraper.Record{
						Table: "commands", Key: key,
						Ref: fmt.Sprintf("%s:%d (%s / %s / %s)", ref, lineNo, version, channel, osName),
						Fields: map[string]string{
							"version_heading": version, "channel": channel, "os": osName,
							"label": label, "command": line,
						},
					})
				}
			}
		}
	}
	if versions == 0 || len(recs) == 0 {
		return nil, fmt.Errorf("no version sections with install commands found (expected '### vX.Y.Z' headings and fenced command blocks)")
	}
	return recs, nil
}

var (
	reHeadVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^v(\d+\.\d+\.\d+)\b`) })
	reTorchPin    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:torch|pytorch|pytorch-cpu)==([0-9][0-9.]*)(?:\+([A-Za-z0-9.]+))?`)
	})
	reVisionPin  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\btorchvision(?:-cpu)?==([0-9][0-9.]*[0-9])`) })
	reAudioPin   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\btorchaudio==([0-9][0-9.]*[0-9])`) })
	reIndex      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(--index-url|--extra-index-url|-f)\s+(\S+)`) })
	reWheelPage  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(https://download\.pytorch\.org/whl/\S+)`) })
	reWhlVariant = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`/whl/(?:lts/\d+\.\d+/)?(cu\d+|cpu|rocm[0-9.]+|xpu)(?:/|$)`)
	})
	reCondaCUDA = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(?:cudatoolkit|pytorch-cuda)=([0-9]+\.[0-9]+)`) })
	reCondaPkg  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bcuda(80|90|92|100|101)\b`) })
	reLabelCUDA = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^CUDA\s+([0-9]+\.[0-9]+)`) })
	reLabelROCm = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^ROCM\s*([0-9][0-9.]*[0-9])`) })
)

// command is an install command read for the facts it carries.
type command struct {
	version, variant, local, vision, audio, index string
	conda                                         bool
	platforms                                     []string
}

func parseCommand(r scraper.Record) (command, error) {
	f := r.Fields
	var c command
	m := reHeadVersion().FindStringSubmatch(f["version_heading"])
	if m == nil {
		return c, fmt.Errorf("heading %q is not a release version", f["version_heading"])
	}
	c.version = m[1]
	cmd, label := f["command"], f["label"]
	if tm := reTorchPin().FindStringSubmatch(cmd); tm != nil {
		if tm[1] != c.version {
			return c, fmt.Errorf("command installs torch %s under the heading of %s", tm[1], c.version)
		}
		c.local = tm[2]
	}
	if vm := reVisionPin().FindStringSubmatch(cmd); vm != nil {
		c.vision = vm[1]
	}
	if am := reAudioPin().FindStringSubmatch(cmd); am != nil {
		c.audio = am[1]
	}
	if im := reIndex().FindStringSubmatch(cmd); im != nil {
		c.index = im[2]
	} else if wm := reWheelPage().FindStringSubmatch(cmd); wm != nil && strings.HasPrefix(cmd, "Download") {
		c.index = wm[1]
	}
	switch strings.ToLower(f["channel"]) {
	case "conda":
		c.conda = true
	case "wheel":
	default:
		return c, fmt.Errorf("section %q is neither Conda nor Wheel", f["channel"])
	}
	osName := strings.ToLower(f["os"])
	switch {
	case strings.Contains(osName, "osx") || strings.Contains(osName, "mac"):
		c.platforms = []string{"macos"}
		c.variant = "cpu"
	case strings.Contains(osName, "linux") || strings.Contains(osName, "windows"):
		ll := strings.ToLower(label)
		switch {
		case strings.Contains(ll, "linux"):
			c.platforms = []string{"linux"}
		case strings.Contains(ll, "windows"):
			c.platforms = []string{"windows"}
		default:
			c.platforms = []string{"linux", "windows"}
		}
	default:
		return c, fmt.Errorf("unknown OS section %q", f["os"])
	}
	if c.variant == "" {
		c.variant = variantOf(cmd, c.local, c.index, label)
	}
	if c.variant == "" {
		return c, fmt.Errorf("cannot tell the variant of %q (label %q)", cmd, label)
	}
	if c.platforms[0] != "macos" && strings.HasPrefix(c.variant, "rocm") {
		c.platforms = []string{"linux"}
	}
	return c, nil
}

func variantOf(cmd, local, index, label string) string {
	if local != "" {
		return local
	}
	if m := reWhlVariant().FindStringSubmatch(index); m != nil {
		return m[1]
	}
	if m := reCondaCUDA().FindStringSubmatch(cmd); m != nil {
		return variantOfCUDA(m[1])
	}
	if m := reCondaPkg().FindStringSubmatch(cmd); m != nil {
		return "cu" + m[1]
	}
	if strings.Contains(cmd, "cpuonly") || strings.Contains(cmd, "pytorch-cpu") {
		return "cpu"
	}
	if m := reLabelCUDA().FindStringSubmatch(label); m != nil {
		return variantOfCUDA(m[1])
	}
	if m := reLabelROCm().FindStringSubmatch(label); m != nil {
		return "rocm" + m[1]
	}
	if strings.HasPrefix(strings.ToLower(label), "cpu") {
		return "cpu"
	}
	return ""
}

// wheelBuild is a pip build of torch. isDefault marks the variant plain
// `pip install torch==v` gets from PyPI on that platform. From 1.11 on the
// variant indexes serve every variant under a local label, so the build
// names that index; before, PyPI's default had no local label and the rest
// came from find-links pages.
func wheelBuild(v, variant, platform string, isDefault bool, p db.Provenance) db.Build {
	b := db.Build{Component: "torch", Version: v, Variant: variant, Platform: platform,
		CUDA: cudaOfVariant(variant), IsDefault: isDefault, Provenance: p}
	switch {
	case platform == "macos" || platform == "linux-aarch64":
		b.PipVersion, b.IndexURL = v, pypiSimpleURL
	case isDefault && cmpDotted(v, "1.11.0") < 0:
		b.PipVersion, b.IndexURL = v, pypiSimpleURL
	default:
		b.PipVersion, b.IndexURL = v+"+"+variant, indexURL(v, variant)
	}
	return b
}

func (s PreviousVersions) Normalize(recs []scraper.Record) (*db.Facts, error) {
	f := newFacts(s.Name())
	for _, r := range recs {
		if r.Table != "commands" {
			f.refuse(r, "unknown table")
			continue
		}
		c, err := parseCommand(r)
		if err != nil {
			f.refuse(r, err.Error())
			continue
		}
		p := f.prov(prevDoc.page, r.Ref)
		f.release("torch", c.version, p)
		cmd := r.Fields["command"]
		noIndex := c.index == "" && c.local == "" && !c.conda
		for _, plat := range c.platforms {
			var b db.Build
			if c.conda {
				b = db.Build{Component: "torch", Version: c.version, Variant: c.variant, Platform: plat,
					Channel: "conda", CUDA: cudaOfVariant(c.variant), Provenance: p}
			} else {
				// A Linux/Windows command with neither index nor local label
				// is what PyPI serves; PyPI's Windows wheels are CPU-only, so
				// only the Linux build is the default there.
				def := noIndex && (plat == "linux" || plat == "macos")
				b = wheelBuild(c.version, c.variant, plat, def, p)
				switch {
				case c.local != "":
					b.PipVersion = c.version + "+" + c.local
				case strings.HasPrefix(cmd, "Download"):
					// pre-1.2 wheel pages list files without local labels
					b.PipVersion = c.version
				}
				if c.index != "" {
					b.IndexURL = c.index
				}
			}
			f.build(b)
			k := b.Key()
			if c.vision != "" {
				f.require(db.Requirement{Build: k, Needs: "torchvision", Spec: c.vision, Kind: db.KindPaired, Provenance: p})
				f.release("torchvision", c.vision, p)
			}
			if c.audio != "" {
				f.require(db.Requirement{Build: k, Needs: "torchaudio", Spec: c.audio, Kind: db.KindPaired, Provenance: p})
				f.release("torchaudio", c.audio, p)
			}
		}
	}
	if len(f.out.Builds) == 0 {
		return nil, fmt.Errorf("no usable install command among %d records", len(recs))
	}
	return f.result(), nil
}
