package version

import (
	"reflect"
	"strings"
	"testing"
)

var versionSeeds = []string{
	"2.1", "2.1.0+cu121", "2.2.0rc1", "1.13.1.post1", "v2.1", "1!2.0a1.post2.dev3+abc.1",
	"1.0.dev1", "0", "01.002", "1.0-1", "1.0+01", "2.1.0+rocm5-6", "banana", "", "r418.39",
}

func FuzzParse(f *testing.F) {
	for _, a := range versionSeeds {
		f.Add(a, "2.1.0")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		va, errA := Parse(a)
		vb, errB := Parse(b)
		if v, ok := parseSimple(strings.TrimSpace(a)); ok {
			g, err := parseGrammar(a, strings.TrimSpace(a))
			if err != nil || !reflect.DeepEqual(g, v) {
				t.Fatalf("parseSimple(%q) = %+v, the grammar says %+v, %v", a, v, g, err)
			}
		}
		if errA == nil {
			checkVersionRoundTrip(t, a, va)
		}
		if errA != nil || errB != nil {
			return
		}
		c := va.Compare(vb)
		if vb.Compare(va) != -c {
			t.Fatalf("Compare not antisymmetric for %q, %q", a, b)
		}
		if got := cmpStr(SortKey(a), SortKey(b)); got != c {
			t.Fatalf("SortKey order %d != Compare %d for %q (%q) and %q (%q)",
				got, c, a, SortKey(a), b, SortKey(b))
		}
	})
}

func checkVersionRoundTrip(t *testing.T, in string, v Version) {
	t.Helper()
	w, err := Parse(v.String())
	if err != nil {
		t.Fatalf("Parse(%q) ok but String %q does not parse: %v", in, v.String(), err)
	}
	if w.Compare(v) != 0 || w.String() != v.String() {
		t.Fatalf("round trip of %q: %q -> %q", in, v.String(), w.String())
	}
	p, err := Parse(v.Public())
	if err != nil || p.Local() != "" || p.Compare(v) > 0 {
		t.Fatalf("Public of %q = %q invalid or not <= version (%v)", in, v.Public(), err)
	}
	if (v.Local() == "") != (p.Compare(v) == 0) {
		t.Fatalf("local label of %q: Local %q, public compares %d", in, v.Local(), p.Compare(v))
	}
	k := SortKey(v.String())
	if k != SortKey(in) {
		t.Fatalf("SortKey(%q) = %q but SortKey of its normal form = %q", in, SortKey(in), k)
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			t.Fatalf("SortKey(%q) not printable ASCII: %q", in, k)
		}
	}
}

func FuzzParseSpecifiers(f *testing.F) {
	for _, s := range []string{
		">=2,<2.3", "==2.1.*", "~=2.1", "!=2.1.1", "==2.1.0+cu121", "==2.1", "", "===", ">=abc",
		"=>2", "==", "~=2", "<2.2rc2", ">2.1.post1", "==1!2.*",
	} {
		f.Add(s, "2.1.0+cu121", false)
	}
	f.Fuzz(func(t *testing.T, spec, ver string, allowPre bool) {
		s, err := ParseSpecifiers(spec)
		if err != nil {
			return
		}
		again, err := ParseSpecifiers(s.String())
		if err != nil {
			t.Fatalf("ParseSpecifiers(%q) ok but its String %q fails: %v", spec, s.String(), err)
		}
		if again.String() != s.String() {
			t.Fatalf("String not stable: %q -> %q", s.String(), again.String())
		}
		if s.IsExact() && (len(s) != 1 || s[0].Op() != "==") {
			t.Fatalf("IsExact true for %q", s)
		}
		v, err := Parse(ver)
		if err != nil {
			return
		}
		got := s.Check(v, allowPre)
		if again.Check(v, allowPre) != got {
			t.Fatalf("%q and its round trip %q disagree on %q", spec, s.String(), ver)
		}
		if got && !allowPre && !s.Check(v, true) {
			t.Fatalf("%q accepts %q without pre-releases but rejects it with them", s, ver)
		}
	})
}

func FuzzParseRequirement(f *testing.F) {
	for _, s := range []string{
		"torch==2.1", "torch", "torch >= 2, <2.3", "tensorflow[and-cuda]==2.16.1", "cuda==12.1",
		"jax[cuda12]==0.4.30", "torch===", "torch>=abc", "", "==2.1", "torch[cuda", "x (>=1)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r, err := ParseRequirement(in)
		if err != nil {
			return
		}
		if r.Name == "" || r.Name != NormalizeName(r.Name) {
			t.Fatalf("ParseRequirement(%q) name %q not normalized", in, r.Name)
		}
		again, err := ParseRequirement(r.String())
		if err != nil {
			t.Fatalf("ParseRequirement(%q) ok but its String %q fails: %v", in, r.String(), err)
		}
		if again.String() != r.String() {
			t.Fatalf("String not stable: %q -> %q", r.String(), again.String())
		}
		if s, err := ParseSpecifiers(r.SpecText()); err != nil || s.String() != r.Specs.String() {
			t.Fatalf("SpecText %q of %q does not reparse to %q (%v)", r.SpecText(), in, r.Specs, err)
		}
	})
}

func FuzzParseDotted(f *testing.F) {
	for _, s := range []string{
		"12.1", "12.1.1", "8.9.2.26", "535.104.05", "470.82.01", "375.74", "8.6", "r418.39",
		"banana", "", "1..2", "-1", "1.2.3.4.5.6.7", "1234567890",
	} {
		f.Add(s, "12.10")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		da, errA := ParseDotted(a)
		db, errB := ParseDotted(b)
		if errA == nil {
			again, err := ParseDotted(da.String())
			if err != nil || again.Compare(da) != 0 || again.String() != da.String() {
				t.Fatalf("round trip of %q via %q failed (%v)", a, da.String(), err)
			}
			if len(da.Fields()) < 1 || len(da.Fields()) > maxDottedFields {
				t.Fatalf("ParseDotted(%q) has %d fields", a, len(da.Fields()))
			}
			if !da.HasPrefix(da) || DottedKey(a) == "" || strings.TrimSpace(DottedKey(a)) != DottedKey(a) {
				t.Fatalf("ParseDotted(%q): HasPrefix(self) false or bad key %q", a, DottedKey(a))
			}
		} else if DottedKey(a) != "" {
			t.Fatalf("DottedKey(%q) = %q for unparsable text", a, DottedKey(a))
		}
		if errA != nil || errB != nil {
			return
		}
		c := da.Compare(db)
		if db.Compare(da) != -c {
			t.Fatalf("Compare not antisymmetric for %q, %q", a, b)
		}
		if got := cmpStr(DottedKey(a), DottedKey(b)); got != c {
			t.Fatalf("DottedKey order %d != Compare %d for %q, %q", got, c, a, b)
		}
		if db.HasPrefix(da) && len(da.Fields()) >= len(db.Fields()) && c != 0 {
			t.Fatalf("%q has prefix %q but they are not equal", b, a)
		}
	})
}

func FuzzParseDottedSpec(f *testing.F) {
	for _, s := range []string{
		"==12.1", "==8.9.*", ">=525.60.13", "<13", ">=12,<12.4", "!=12.2", "~=12.1", "",
		"=>12", "~=12", ">=r418.39", "12.1",
	} {
		f.Add(s, "12.1.1")
	}
	f.Fuzz(func(t *testing.T, spec, ver string) {
		s, err := ParseDottedSpec(spec)
		if err != nil {
			return
		}
		again, err := ParseDottedSpec(s.String())
		if err != nil || again.String() != s.String() {
			t.Fatalf("ParseDottedSpec(%q) String %q does not round trip (%v)", spec, s.String(), err)
		}
		d, err := ParseDotted(ver)
		if err != nil {
			return
		}
		if s.Check(d) != again.Check(d) {
			t.Fatalf("%q and %q disagree on %q", spec, s.String(), ver)
		}
	})
}
