package host

import "testing"

func TestNormalizeCUDNN(t *testing.T) {
	for _, tc := range []struct {
		in    string
		v     string
		major int
	}{
		{"9.1.0.70", "9.1.0", 9}, {"8902", "8.9.2", 8}, {"90100", "9.1.0", 9}, {"91501", "9.15.1", 9},
		{"7102", "7.1.2", 7}, {"libcudnn.so.8.9.2", "8.9.2", 8}, {"8", "8", 8}, {"8.9.4", "8.9.4", 8},
	} {
		v, major, ok := NormalizeCUDNN(tc.in)
		if !ok || v != tc.v || major != tc.major {
			t.Errorf("NormalizeCUDNN(%q) = %q %d %v, want %q %d", tc.in, v, major, ok, tc.v, tc.major)
		}
	}
	if _, _, ok := NormalizeCUDNN("none"); ok {
		t.Error("NormalizeCUDNN(none) ok")
	}
}

func TestVariants(t *testing.T) {
	for in, want := range map[string]string{"cu121": "12.1", "cu92": "9.2", "cu118": "11.8", "cpu": "", "rocm6.0": ""} {
		if got := CUDAFromVariant(in); got != want {
			t.Errorf("CUDAFromVariant(%q) = %q", in, got)
		}
	}
	if got := VariantFromCUDA("12.4"); got != "cu124" {
		t.Errorf("VariantFromCUDA = %q", got)
	}
	if got := NormalizeName("Typing_Extensions"); got != "typing-extensions" {
		t.Errorf("NormalizeName = %q", got)
	}
	if v, raw := ToolkitVersion("12.6.20241114"); v != "12.6" || raw != "12.6.20241114" {
		t.Errorf("ToolkitVersion = %q %q", v, raw)
	}
	if v, raw := ToolkitVersion("12.2.140"); v != "12.2.140" || raw != "" {
		t.Errorf("ToolkitVersion = %q %q", v, raw)
	}
	tt := TorchFrom("2.1.0+cpu", "", "x")
	if tt.Variant != "cpu" || tt.CUDA != "" {
		t.Errorf("TorchFrom cpu = %+v", tt)
	}
	tt = TorchFrom("2.6.0", "12.4", "x")
	if tt.Variant != "cu124" {
		t.Errorf("TorchFrom pypi default = %+v", tt)
	}
}
