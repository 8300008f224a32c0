package httpapi

import (
	"fmt"
	"strings"

	"github.com/cudb/cudb/internal/host/report"
)

// WorstVerifyBody is the costliest body POST /v1/verify accepts (as far
// as we know): a GPU host with four frameworks installed, the most
// distinct error lines the report bounds allow, each matching a pattern
// whose fix needs a fresh resolve, and filler up to MaxBody. It is
// synthetic by design: a hostile input, not a real report.
func WorstVerifyBody() []byte {
	var b strings.Builder
	b.WriteString("| NVIDIA-SMI 535.129.03             Driver Version: 535.129.03   CUDA Version: 12.2     |\n")
	b.WriteString("|   0  NVIDIA GeForce RTX 4090        Off | 00000000:01:00.0  On |                  Off |\n")
	b.WriteString("Package Version\n------- -------\n")
	for _, p := range []string{"torch 2.1.0+cu121", "tensorflow 2.14.0", "jax 0.4.30", "jaxlib 0.4.30", "onnxruntime-gpu 1.17.0",
		"nvidia-cudnn-cu12 8.9.2.26", "torchvision 0.16.0"} {
		b.WriteString(p + "\n")
	}
	kinds := []string{
		"RuntimeError: The NVIDIA driver on your system is too old (found version %d)",
		"nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.%d",
		"NVIDIA GeForce RTX 5090 with CUDA capability sm_%d is not compatible with the current PyTorch installation.",
		"RuntimeError: cuDNN version incompatibility: PyTorch was compiled against (8, 9, %d) but found runtime version (8, 7, 0).",
		"Loaded runtime CuDNN library: 8.%d.0 but source was compiled with: 8.9.4",
		"Could not load dynamic library 'libcudart.so.1%d.0'; dlerror: not found",
		"The detected CUDA version (11.%d) mismatches the version that was used to compile PyTorch (12.1)",
		"CUDA error: no kernel image is available for execution on the device (case %d)",
	}
	for i := 0; i < report.MaxErrors; i++ {
		fmt.Fprintf(&b, kinds[i%len(kinds)]+"\n", 11000+i*10+i%len(kinds))
	}
	filler := "  File \"/usr/lib/python3/dist-packages/module.py\", line 1234, in call\n"
	for b.Len()+len(filler) <= MaxBody {
		b.WriteString(filler)
	}
	return []byte(b.String())
}
