package pytorch

import "testing"

func TestNormMarker(t *testing.T) {
	for in, want := range map[string]string{
		`platform_system == 'Linux'`:                                `platform_system == "Linux"`,
		`platform_system=="Linux"  and  platform_machine=='x86_64'`: `platform_system == "Linux" and platform_machine == "x86_64"`,
		`( python_version<'3.13' ) or sys_platform == 'linux'`:      `(python_version < "3.13") or sys_platform == "linux"`,
		`platform_system == "Linux"`:                                `platform_system == "Linux"`,
		`platform_system == 'Linux`:                                 `platform_system == 'Linux`, // unbalanced quote: untouched
		``:                                                          ``,
	} {
		if got := normMarker(in); got != want {
			t.Errorf("normMarker(%q) = %q, want %q", in, got, want)
		}
	}
	// sys_platform and platform_system are different markers: not folded.
	if normMarker(`sys_platform == 'linux'`) == normMarker(`platform_system == 'Linux'`) {
		t.Error("different marker variables folded together")
	}
}
