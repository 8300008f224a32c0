// Package ngc is the source for NVIDIA's NGC framework containers
// (nvcr.io/nvidia/pytorch:YY.MM-py3 and its tensorflow, jax and
// tritonserver siblings): what each monthly release's image carries (CUDA,
// cuDNN, NCCL, Python) and the driver it needs, from NVIDIA's container
// release notes. A release is a build of component "ngc": version YY.MM,
// variant the image name, channel "ngc".
package ngc

import (
	"context"
	"embed"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/srcio"
)

// Name is the source's name.
const Name = "ngc"

// liveNotes is NVIDIA's Triton release notes as the server repository
// publishes them: the newest release's "Contents" and "Driver
// Requirements" sections.
const liveNotes = "https://raw.githubusercontent.com/triton-inference-server/server/main/docs/introduction/release_notes.md"

//go:embed captures/*.md
var captures embed.FS

// Source is the NGC container source.
type Source struct{}

// Name implements scraper.Source.
func (Source) Name() string { return Name }

// URL implements scraper.Source.
func (Source) URL() string {
	return "https://docs.nvidia.com/deeplearning/frameworks/support-matrix/index.html"
}

// Accumulates: the live file holds the current release only, so a live
// refresh keeps the rows of earlier releases (scraper.Accumulator).
func (Source) Accumulates() bool { return true }

// Record tables.
const (
	tableNotes     = "release_notes" // one image release's notes
	tableStatement = "statement"     // quoted facts about an image release
)

// notesFiles are the captured editions of the Triton release notes, each
// with the commit of triton-inference-server/server it was read at.
var notesFiles = []struct{ file, commit string }{
	{"tritonserver-release_notes@0194c3da9.md", "0194c3da9ddeeff07547f46aa058cf88acb51893"},
	{"tritonserver-release_notes@38520f6d0.md", "38520f6d04795363a8c76288863f4fabd59a58d1"},
	{"tritonserver-release_notes@d3ee577e4.md", "d3ee577e403a445fb69db3e8e5a641f9a6765650"},
}

// Scrape implements scraper.Source. Live, it reads the current release
// notes file; from snapshots, the captured editions and the quoted
// statements (captures/CAPTURES.md).
func (Source) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	if in.Snapshots == "" {
		b, err := srcio.Read(ctx, in, liveNotes, "")
		if err != nil {
			return nil, err
		}
		return ParseNotes(b, liveNotes, "release_notes.md@main")
	}
	var recs []scraper.Record
	for _, f := range notesFiles {
		b, err := captures.ReadFile("captures/" + f.file)
		if err != nil {
			return nil, err
		}
		url := "https://github.com/triton-inference-server/server/blob/" + f.commit + "/docs/introduction/release_notes.md"
		rs, err := ParseNotes(b, url, "release_notes.md@"+f.commit[:9])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.file, err)
		}
		recs = append(recs, rs...)
	}
	b, err := captures.ReadFile("captures/image-statements.md")
	if err != nil {
		return nil, err
	}
	st, err := ParseStatements(b)
	if err != nil {
		return nil, fmt.Errorf("image-statements.md: %w", err)
	}
	return append(recs, st...), nil
}

// images maps the product a release-notes heading names to its image.
var images = map[string]string{
	"triton inference server": "tritonserver", "pytorch": "pytorch", "tensorflow": "tensorflow", "jax": "jax",
}

var (
	reLink    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)\[([^\]]*)\]\([^)\s]*\)`) })
	reHeading = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?im)^#\s*(?:NVIDIA\s+)?(Triton Inference Server|PyTorch|TensorFlow|JAX)\s+Release\s+(\d{2}\.\d{2})\s*$`)
	})
	reBullet = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*[-*]\s+(.*)$`) })
	reCUDA   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:NVIDIA )?CUDA (\d+(?:\.\d+)+)$`) })
	reCUDNN  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:NVIDIA )?cuDNN (\d+(?:\.\d+)+)$`) })
	reNCCL   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:NVIDIA )?NCCL (\d+(?:\.\d+)+)\b`) })
	reUbuntu = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Ubuntu (\d+\.\d+) including Python (\d+\.\d+)$`) })
	reDriver = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`Release (\d{2}\.\d{2}) is based on (?:NVIDIA )?CUDA (\d+(?:\.\d+)+),? which requires NVIDIA Driver release (\d{3}) or later\.`)
	})
	reDataCenter = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`if you are running on a data center GPU \([^)]*\), you can use NVIDIA driver release (.+?\)),? ?\.`)
	})
	reBranch = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d{3})\.(\d+(?:\.\d+)?) \(or later R(\d{3})\)`) })
	reCCMin  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`Release (\d{2}\.\d{2}) supports CUDA compute capability (\d+\.\d+) and later`)
	})
)

// plain drops markdown links (keeping their text), emphasis and escapes.
func plain(s string) string {
	s = reLink().ReplaceAllString(s, "$1")
	s = strings.NewReplacer("**", "", `\'`, "'", "`", "").Replace(s)
	return s
}

func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// ParseNotes reads one edition of an NGC container's release notes (the
// markdown NVIDIA publishes): the image and release its heading names, the
// CUDA, cuDNN, NCCL and Python its contents list, the driver its "Driver
// Requirements" section asks for and the data-center branches it allows,
// and the compute-capability floor. One record per edition. A file with
// no release heading, or whose release states neither contents nor a
// driver, is an error: the structure is not the one read.
func ParseNotes(b []byte, url, ref string) ([]scraper.Record, error) {
	text := plain(string(b))
	h := reHeading().FindStringSubmatch(text)
	if h == nil {
		return nil, fmt.Errorf("no \"<product> Release YY.MM\" heading")
	}
	image, release := images[strings.ToLower(h[1])], h[2]
	f := map[string]string{"image": image, "release": release}
	// Bullets, with their wrapped continuation lines joined.
	var bullets []string
	for _, line := range strings.Split(text, "\n") {
		if m := reBullet().FindStringSubmatch(line); m != nil {
			bullets = append(bullets, m[1])
			continue
		}
		if len(bullets) > 0 && strings.TrimSpace(line) != "" && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")) {
			bullets[len(bullets)-1] += " " + line
			continue
		}
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			bullets = append(bullets, "") // a bullet ends at a blank line or heading
		}
	}
	for _, bl := range bullets {
		bl = squash(bl)
		if m := reCUDA().FindStringSubmatch(bl); m != nil && f["cuda"] == "" {
			f["cuda"] = m[1]
		} else if m := reCUDNN().FindStringSubmatch(bl); m != nil && f["cudnn"] == "" {
			f["cudnn"] = m[1]
		} else if m := reNCCL().FindStringSubmatch(bl); m != nil && f["nccl"] == "" {
			f["nccl"] = m[1]
		} else if m := reUbuntu().FindStringSubmatch(bl); m != nil && f["python"] == "" {
			f["ubuntu"], f["python"] = m[1], m[2]
		}
	}
	flat := squash(text)
	if m := reDriver().FindStringSubmatch(flat); m != nil {
		if m[1] != release {
			return nil, fmt.Errorf("the driver section names release %s under the heading of %s", m[1], release)
		}
		f["based_on_cuda"], f["driver_release"] = m[2], m[3]
		f["driver_text"] = m[0]
		if d := reDataCenter().FindStringSubmatch(flat); d != nil {
			var branches []string
			for _, b := range reBranch().FindAllStringSubmatch(d[1], -1) {
				if b[1] != b[3] {
					return nil, fmt.Errorf("data-center driver %s.%s is said to be of branch R%s", b[1], b[2], b[3])
				}
				branches = append(branches, b[1]+"."+b[2])
			}
			if len(branches) == 0 {
				return nil, fmt.Errorf("the data-center sentence names no driver release: %q", d[0])
			}
			f["datacenter_drivers"] = strings.Join(branches, " ")
			f["driver_text"] += " " + d[0]
		}
	}
	if m := reCCMin().FindStringSubmatch(flat); m != nil && m[1] == release {
		f["cc_min"] = m[2]
	}
	if f["cuda"] == "" && f["driver_release"] == "" {
		return nil, fmt.Errorf("release %s: no CUDA in the contents and no driver requirement (the notes may only point elsewhere)", release)
	}
	return []scraper.Record{{Table: tableNotes, Key: image + "/" + release, Ref: ref + " (" + h[0] + ")", URL: url, Fields: f}}, nil
}

var (
	reSection = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^## (https://\S+)\s*$`) })
	reFact    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^image: ([a-z]+) (\d{2}\.\d{2})((?:\s*\|\s*[a-z_]+ [0-9a-z.+ ]+)+)\s*$`)
	})
)

// statementKeys are the facts a statement may give, and how a quote must
// state each ("%s" is the value).
var statementKeys = map[string][]string{
	"cuda":   {"CUDA %s"},
	"python": {"Python %s"},
	"driver": {"Driver release %s or later", "driver release %s or later", "Driver release %s."},
	"torch":  {"is based on %s", "is based on PyTorch %s", "PyTorch Version %s"},
	"cudnn":  {"cuDNN %s"},
	"nccl":   {"NCCL %s"},
}

// ParseStatements reads the quoted statements: one record per image fact
// line, each value checked against the section's quotes. A fact no quote
// states is an error, not a dropped row.
func ParseStatements(b []byte) ([]scraper.Record, error) {
	var recs []scraper.Record
	url, strength := "", ""
	var quotes []string
	seen := map[string]bool{}
	for i, line := range strings.Split(string(b), "\n") {
		switch {
		case reSection().MatchString(line):
			url, strength, quotes = reSection().FindStringSubmatch(line)[1], "", nil
		case strings.HasPrefix(line, "strength:"):
			strength = strings.TrimSpace(strings.TrimPrefix(line, "strength:"))
		case strings.HasPrefix(line, "> "):
			quotes = append(quotes, strings.TrimPrefix(line, "> "))
		case strings.HasPrefix(line, "image:"):
			m := reFact().FindStringSubmatch(line)
			if m == nil || url == "" {
				return nil, fmt.Errorf("line %d: not an image fact under a document: %q", i+1, line)
			}
			f := map[string]string{"image": m[1], "release": m[2], "strength": strength, "quote": strings.Join(quotes, " ")}
			for _, kv := range strings.Split(strings.Trim(m[3], " |"), "|") {
				k, v, _ := strings.Cut(strings.TrimSpace(kv), " ")
				if k == "datacenter_drivers" {
					// each "X.Y (or later RX)" of the notes' sentence
					for _, rel := range strings.Fields(v) {
						br, _, _ := strings.Cut(rel, ".")
						if !stated(quotes, []string{"%s (or later R" + br + ")"}, rel) {
							return nil, fmt.Errorf("line %d: no quoted line allows data-center driver %s", i+1, rel)
						}
					}
					f[k] = v
					continue
				}
				forms, ok := statementKeys[k]
				if !ok {
					return nil, fmt.Errorf("line %d: unknown fact %q", i+1, k)
				}
				if !stated(quotes, forms, v) {
					return nil, fmt.Errorf("line %d: no quoted line states %s %s", i+1, k, v)
				}
				f[k] = v
			}
			key := m[1] + "/" + m[2] + "@" + url
			if seen[key] {
				return nil, fmt.Errorf("line %d: %s %s twice from one document", i+1, m[1], m[2])
			}
			seen[key] = true
			recs = append(recs, scraper.Record{Table: tableStatement, Key: key, URL: url, Ref: "image-statements.md line " + fmt.Sprint(i+1), Fields: f})
		}
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no image statements")
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Key < recs[j].Key })
	return recs, nil
}

func stated(quotes, forms []string, v string) bool {
	for _, q := range quotes {
		for _, form := range forms {
			if strings.Contains(q, fmt.Sprintf(form, v)) {
				return true
			}
		}
	}
	return false
}
