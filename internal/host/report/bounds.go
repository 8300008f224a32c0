package report

import (
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/host"
)

// Bounds on what a report may state. Real versions are a few dozen bytes
// ("2.1.0+cu121", "535.104.05"); a longer one is not a version, and
// echoing it into findings would repeat it whole. The counts bound the
// judgement's work: each error line is an explain of its own, each
// environment a resolve per framework.
const (
	MaxVersion  = 128   // bytes of a version or a package's version
	MaxText     = 4096  // bytes of any other field (paths, names, lines)
	MaxErrors   = 50    // error lines judged (verify.MaxExplainedLines); refused beyond
	MaxPythons  = 16    // Python environments
	MaxList     = 256   // entries of any other list (GPUs, toolkits, cuDNN copies, notes)
	MaxPackages = 10000 // entries of a package map
)

// ErrNoFacts is returned for probe JSON that states nothing: judging it
// would report a healthy host that nobody saw.
var ErrNoFacts = errs.Usage("the probe JSON states no facts (no driver, GPU, toolkit, cuDNN, Python, error line or note)")

// checkFacts refuses facts over the bounds with a CodeLimit error that
// names the field and the bound without repeating the value.
func checkFacts(f *host.Snapshot) error {
	if len(f.Errors) > MaxErrors {
		return errs.Errorf(errs.CodeLimit, "the report holds %d distinct error lines: at most %d are judged", len(f.Errors), MaxErrors).
			WithHint("send the lines around the failure, not the whole log")
	}
	if len(f.Pythons) > MaxPythons {
		return errs.Errorf(errs.CodeLimit, "the report holds %d Python environments: at most %d are judged", len(f.Pythons), MaxPythons).
			WithHint("send one report per environment")
	}
	return walk(reflect.ValueOf(f).Elem(), "", false)
}

func walk(v reflect.Value, path string, isVersion bool) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return walk(v.Elem(), path, isVersion)
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				name = sf.Name
			}
			if err := walk(v.Field(i), join(path, name), strings.HasSuffix(sf.Name, "Version")); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Len() > MaxList {
			return limit("%s holds %d entries (at most %d)", path, v.Len(), MaxList)
		}
		for i := 0; i < v.Len(); i++ {
			if err := walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i), isVersion); err != nil {
				return err
			}
		}
	case reflect.Map:
		if v.Len() > MaxPackages {
			return limit("%s holds %d entries (at most %d)", path, v.Len(), MaxPackages)
		}
		iter := v.MapRange()
		for iter.Next() {
			k := iter.Key()
			if k.Kind() == reflect.String && len(k.String()) > MaxVersion {
				return limit("%s: a name is %d bytes long (at most %d)", path, len(k.String()), MaxVersion)
			}
			// Maps of names to versions (packages, conda packages, wheels).
			if err := walk(iter.Value(), join(path, clipKey(k.String())), iter.Value().Kind() == reflect.String); err != nil {
				return err
			}
		}
	case reflect.String:
		s := v.String()
		max := MaxText
		if isVersion {
			max = MaxVersion
		}
		if len(s) > max {
			return limit("%s is %d bytes long (at most %d)", path, len(s), max)
		}
		if strings.ContainsRune(s, 0) || !utf8.ValidString(s) {
			return errs.Usage("%s holds a NUL byte or invalid UTF-8", path)
		}
	}
	return nil
}

func limit(format string, args ...any) error {
	return errs.Errorf(errs.CodeLimit, format, args...).WithHint("send the report as the tool printed it")
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func clipKey(k string) string {
	if len(k) > 40 {
		return k[:40] + "…"
	}
	return k
}

// empty reports whether facts state nothing at all.
func empty(f *host.Snapshot) bool {
	return f.Driver == nil && f.DriverCUDA == nil && len(f.GPUs) == 0 && len(f.Toolkits) == 0 && f.CUDAHome == "" &&
		len(f.CUDNN) == 0 && len(f.LDLibraryPath) == 0 && len(f.Pythons) == 0 && len(f.Errors) == 0 && len(f.Notes) == 0
}
