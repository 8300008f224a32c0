package onnxruntime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cudb/cudb/scraper"
)

// The onnxruntime.ai pages read so far stop at the CUDA 12 tables of 1.20;
// what later releases ship (the platforms of their wheels, which CUDA line
// PyPI serves, the cuDNN major of the CUDA 13 builds) is said in pull
// requests, issues and PyPI's own file addresses. captures/statements.md
// holds trimmed, verbatim quotes of those documents with the facts read
// from them; every fact must be stated by a quote of its section.
const (
	capStatements = "statements.md"

	tableStated = "stated"
)

var (
	stSectionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^##\s+(\S.*)$`) })
	// WheelRE matches the address of an onnxruntime-gpu wheel on PyPI's
	// file host: the live simple index (https://pypi.org/simple/onnxruntime-gpu/)
	// links the same addresses.
	wheelRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`https://files\.pythonhosted\.org/packages/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{60}/onnxruntime_gpu-([0-9]+\.[0-9]+\.[0-9]+)-(cp[0-9]+t?)-(cp[0-9]+t?|abi3|none)-([A-Za-z0-9_.]+)\.whl`)
	})
	sinceRE2 = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]+\.[0-9]+\.[0-9]+)\.\.$`) })
	spanRE   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([0-9]+\.[0-9]+\.[0-9]+)\.\.([0-9]+\.[0-9]+\.[0-9]+)$`)
	})
	majorRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]{1,2}$`) })
	relRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`) })
)

// Wheel is what a wheel file name says.
type Wheel struct {
	Version, PythonTag, Platform, URL string
}

// ParseWheelURL reads an onnxruntime-gpu wheel address. Platform is cudb's
// name ("linux", "linux-aarch64", "windows", "macos"); "" for a tag cudb
// does not model (win_arm64).
func ParseWheelURL(u string) (Wheel, bool) {
	m := wheelRE().FindStringSubmatch(u)
	if m == nil || m[0] != u {
		return Wheel{}, false
	}
	return Wheel{Version: m[1], PythonTag: m[2], Platform: wheelPlatform(m[4]), URL: u}, true
}

func wheelPlatform(tag string) string {
	switch {
	case strings.HasSuffix(tag, "_x86_64"):
		return "linux"
	case strings.HasSuffix(tag, "_aarch64"):
		return "linux-aarch64"
	case tag == "win_amd64":
		return "windows"
	case strings.HasPrefix(tag, "macosx_"):
		return "macos"
	}
	return ""
}

// platformWords are the words a quote uses for each platform.
var platformWords = map[string][]string{
	"linux":         {"x86_64", "Linux"},
	"windows":       {"Windows"},
	"linux-aarch64": {"aarch64"},
}

// ParseStatements reads the capture into records of table "stated": one
// per fact line, with its kind and the section's address and strength.
func ParseStatements(b []byte, file string) ([]scraper.Record, error) {
	var out []scraper.Record
	var where, strength string
	var quotes []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), " ")
		kind, rest, isFact := strings.Cut(line, ":")
		switch {
		case stSectionRE().MatchString(line):
			where, strength, quotes = stSectionRE().FindStringSubmatch(line)[1], "", nil
			continue
		case strings.HasPrefix(line, ">"):
			quotes = append(quotes, strings.TrimSpace(strings.TrimPrefix(line, ">")))
			continue
		case strings.HasPrefix(line, "strength:"):
			strength = strings.TrimSpace(strings.TrimPrefix(line, "strength:"))
			continue
		case !isFact || !statedKinds[kind]:
			continue
		}
		if where == "" {
			return nil, fmt.Errorf("line %d: a fact outside a section", n)
		}
		fields := map[string]string{"kind": kind, "evidence": where, "strength": strength}
		parts := strings.Split(rest, "|")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		var err error
		switch kind {
		case "platforms":
			err = statedPlatforms(parts, quotes, fields)
		case "pypi-cuda":
			err = statedSince(parts, 2, quotes, fields, "cuda_major", "CUDA "+last(parts), " is "+last(parts)+".x")
		case "cudnn":
			if len(parts) == 3 {
				fields["variant"] = parts[1]
				parts = []string{parts[0], parts[2]}
			}
			// "cuDNN 9", or the wheel's own requirement on cuDNN's pip
			// package of that CUDA major ("nvidia-cudnn-cu12~=9.0").
			err = statedSince(parts, 2, quotes, fields, "cudnn_major", "cuDNN "+last(parts),
				"nvidia-cudnn-"+strings.Replace(fields["variant"], "cuda", "cu", 1)+"~="+last(parts)+".")
		case "wheel":
			w, ok := ParseWheelURL(strings.TrimSpace(rest))
			switch {
			case !ok:
				err = fmt.Errorf("not an onnxruntime-gpu wheel address on files.pythonhosted.org")
			case !quoted(quotes, w.URL):
				err = fmt.Errorf("no quoted line holds the address")
			default:
				fields["version"], fields["python_tag"], fields["platform"], fields["wheel_url"] = w.Version, w.PythonTag, w.Platform, w.URL
			}
		case "python":
			err = statedPython(parts, quotes, fields)
		case "release":
			switch {
			case !relRE().MatchString(parts[0]):
				err = fmt.Errorf("%q is not a release", parts[0])
			case !quoted(quotes, parts[0]):
				err = fmt.Errorf("no quoted line names %s", parts[0])
			default:
				fields["version"] = parts[0]
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s line %d (%s): %w", file, n, where, err)
		}
		key := where + " " + kind + " " + strings.TrimSpace(rest)
		if seen[key] {
			return nil, fmt.Errorf("%s line %d: a repeated fact", file, n)
		}
		seen[key] = true
		out = append(out, scraper.Record{Table: tableStated, Key: key, URL: statedURL(where), Ref: fmt.Sprintf("%s line %d", file, n), Fields: fields})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s states nothing", file)
	}
	return out, nil
}

var statedKinds = map[string]bool{"platforms": true, "pypi-cuda": true, "cudnn": true, "wheel": true, "release": true, "python": true}

func last(p []string) string { return p[len(p)-1] }

func statedPlatforms(parts, quotes []string, fields map[string]string) error {
	if len(parts) != 2 {
		return fmt.Errorf("want platforms: first..last | platform …")
	}
	m := spanRE().FindStringSubmatch(parts[0])
	if m == nil {
		return fmt.Errorf("%q is not a span of releases (first..last)", parts[0])
	}
	plats := strings.Fields(parts[1])
	if len(plats) == 0 {
		return fmt.Errorf("no platform named")
	}
	for _, p := range plats {
		words, ok := platformWords[p]
		if !ok {
			return fmt.Errorf("unknown platform %q", p)
		}
		if !quoted(quotes, words...) {
			return fmt.Errorf("no quoted line names platform %s", p)
		}
	}
	fields["first"], fields["last"], fields["platforms"] = m[1], m[2], strings.Join(plats, " ")
	return nil
}

var pyRangeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(3\.[0-9]{1,2})-(3\.[0-9]{1,2})$`) })

func statedPython(parts, quotes []string, fields map[string]string) error {
	if len(parts) != 3 {
		return fmt.Errorf("want python: first..last | cuda<major> | min-max")
	}
	m := spanRE().FindStringSubmatch(parts[0])
	if m == nil {
		return fmt.Errorf("%q is not a span of releases (first..last)", parts[0])
	}
	r := pyRangeRE().FindStringSubmatch(parts[2])
	if r == nil || !strings.HasPrefix(parts[1], "cuda") {
		return fmt.Errorf("want a variant (cuda<major>) and a Python range (3.x-3.y)")
	}
	if !quoted(quotes, r[1]+"–"+r[2], r[1]+"-"+r[2]) {
		return fmt.Errorf("no quoted line says %s–%s", r[1], r[2])
	}
	fields["first"], fields["last"], fields["variant"], fields["python_min"], fields["python_max"] = m[1], m[2], parts[1], r[1], r[2]
	return nil
}

func statedSince(parts []string, want int, quotes []string, fields map[string]string, name string, phrases ...string) error {
	if len(parts) != want {
		return fmt.Errorf("want first.. | value")
	}
	m := sinceRE2().FindStringSubmatch(parts[0])
	if m == nil {
		return fmt.Errorf("%q is not an open span of releases (first..)", parts[0])
	}
	if !majorRE().MatchString(parts[1]) {
		return fmt.Errorf("%q is not a major version", parts[1])
	}
	if !quoted(quotes, phrases...) {
		return fmt.Errorf("no quoted line says %q", phrases[0])
	}
	fields["first"], fields[name] = m[1], parts[1]
	return nil
}

func quoted(quotes []string, any ...string) bool {
	for _, q := range quotes {
		for _, w := range any {
			if strings.Contains(q, w) {
				return true
			}
		}
	}
	return false
}

func statedURL(where string) string {
	if u := strings.Fields(where)[0]; strings.HasPrefix(u, "https://") {
		return u
	}
	return ""
}

const (
	liveSimple = "https://pypi.org/simple/onnxruntime-gpu/"
	pypiPage   = "https://pypi.org/project/onnxruntime-gpu/"
)

// scrapeStated reads, live, PyPI's simple index of onnxruntime-gpu (every
// wheel address); from snapshots, the statements capture and the newest
// release the leads file saw on PyPI's release list.
func scrapeStated(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	if in.Snapshots == "" {
		if in.Fetcher == nil {
			return nil, fmt.Errorf("no fetcher and no snapshot directory given")
		}
		b, err := in.Fetcher.Get(ctx, liveSimple)
		if err != nil {
			return nil, fmt.Errorf("failed to fetch %s: %w", liveSimple, err)
		}
		return WheelRecords(b, liveSimple)
	}
	b, err := captures.ReadFile("captures/" + capStatements)
	if err != nil {
		return nil, fmt.Errorf("failed to read capture %s: %w", capStatements, err)
	}
	recs, err := ParseStatements(b, "captures/"+capStatements)
	if err != nil {
		return nil, err
	}
	files, _ := filepath.Glob(filepath.Join(in.Snapshots, "leads-*.csv"))
	sort.Strings(files)
	for _, f := range files {
		lb, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		cr := csv.NewReader(bytes.NewReader(lb))
		cr.FieldsPerRecord = -1
		for line := 1; ; line++ {
			row, err := cr.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", filepath.Base(f), err)
			}
			// line,subject,fact,value,source,...: the row PyPI's release list gave.
			if len(row) < 5 || row[0] != "pypi" || row[1] != component || !strings.HasPrefix(row[2], "newest") {
				continue
			}
			v, _, _ := strings.Cut(row[3], " ")
			if !relRE().MatchString(v) {
				return nil, fmt.Errorf("%s line %d: %q is not a release", filepath.Base(f), line, row[3])
			}
			recs = append(recs, scraper.Record{Table: tableStated, Key: "pypi newest " + v, URL: pypiPage,
				Ref:    fmt.Sprintf("%s line %d", filepath.Base(f), line),
				Fields: map[string]string{"kind": "pypi-newest", "version": v, "evidence": row[4], "strength": "PyPI release list"}})
		}
	}
	return recs, nil
}

// WheelRecords reads every onnxruntime-gpu wheel address of a page (PyPI's
// simple index links each file by its address).
func WheelRecords(b []byte, url string) ([]scraper.Record, error) {
	var out []scraper.Record
	seen := map[string]bool{}
	for _, u := range wheelRE().FindAllString(string(b), -1) {
		w, ok := ParseWheelURL(u)
		if !ok || seen[u] {
			continue
		}
		seen[u] = true
		out = append(out, scraper.Record{Table: tableStated, Key: "wheel " + u, URL: url, Ref: u[strings.LastIndex(u, "/")+1:],
			Fields: map[string]string{"kind": "wheel", "version": w.Version, "python_tag": w.PythonTag, "platform": w.Platform, "wheel_url": u, "evidence": url, "strength": "PyPI"}})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no onnxruntime-gpu wheel address in %s", url)
	}
	return out, nil
}
