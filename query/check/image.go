package check

import (
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/internal/frameworks"
)

// Image families.
const (
	FamilyCUDA       = "nvidia-cuda"
	FamilyPyTorch    = "pytorch/pytorch"
	FamilyTensorFlow = "tensorflow/tensorflow"
	FamilyNGCPyTorch = "ngc-pytorch"
	FamilyPython     = "python"
	FamilyOther      = "other"
)

// osPython is the python3 each base OS ships, from the distributions'
// package indexes: packages.ubuntu.com/{bionic,focal,jammy,noble}/python3,
// packages.debian.org/{bullseye,bookworm}/python3, and the RHEL 8/9
// release notes (platform Python). It decides which wheels pip may pick
// in an image that installs python3 from the OS.
var osPython = map[string]string{
	"ubuntu18.04": "3.6", "ubuntu20.04": "3.8", "ubuntu22.04": "3.10", "ubuntu24.04": "3.12",
	"debian11": "3.9", "debian12": "3.11", "bullseye": "3.9", "bookworm": "3.11",
	"ubi8": "3.6", "ubi9": "3.9", "rockylinux8": "3.6", "rockylinux9": "3.9", "centos7": "3.6", "centos8": "3.6",
}

var (
	cudaTagRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\d+\.\d+(?:\.\d+)?)(?:-(cudnn\d*))?-(base|runtime|devel)-([a-z]+[0-9.]+)$`)
	})
	torchTagRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\d+\.\d+(?:\.\d+)?)-cuda(\d+\.\d+)-cudnn(\d+)-(runtime|devel)$`)
	})
	tfTagRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:(\d+\.\d+(?:\.\d+)?(?:rc\d+)?)-|latest-)?(gpu)(?:-py3)?(?:-jupyter)?$|^(\d+\.\d+(?:\.\d+)?)(?:-py3)?(?:-jupyter)?$`)
	})
	ngcReleaseRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{2}\.\d{2}-`) })
	ngcTagRe     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{2})\.(\d{2})-(?:tf[12]-)?py3$`) })
	pythonTagRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+(?:\.\d+)?)(?:\.\d+)?(?:[a-z]+\d*)?(?:-.*)?$`) })
	osImageRe    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(ubuntu|debian):(\d+\.\d+|\d+|bullseye|bookworm|jammy|focal|noble)`)
	})
	ubuntuCodeOS = map[string]string{"jammy": "22.04", "focal": "20.04", "noble": "24.04", "bionic": "18.04"}
)

// ClassifyImage reads what an image reference says about CUDA, cuDNN,
// Python and frameworks: nvidia/cuda tags (CUDA version, cudnn flavour,
// base/runtime/devel, OS), pytorch/pytorch, tensorflow/tensorflow,
// nvcr.io/nvidia/pytorch:YY.MM-py3 and python:* images. What the tag does
// not say is left empty and named in Unknown.
func ClassifyImage(ref string) Image {
	img := Image{Ref: ref, Family: FamilyOther}
	name := ref
	if at := strings.IndexByte(name, '@'); at >= 0 {
		name = name[:at]
	}
	tag := "latest"
	if c := strings.LastIndexByte(name, ':'); c > strings.LastIndexByte(name, '/') {
		name, tag = name[:c], name[c+1:]
	}
	img.Tag = tag
	name = strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(name, "docker.io/"), "library/"))
	switch name {
	case "nvidia/cuda", "nvcr.io/nvidia/cuda":
		img.Family = FamilyCUDA
		m := cudaTagRe().FindStringSubmatch(tag)
		if m == nil {
			img.Unknown = "the CUDA version of tag " + tag
			return img
		}
		img.CUDA, img.Flavour, img.OS = m[1], m[3], m[4]
		switch {
		case m[2] == "cudnn":
			// Since CUDA 12.3 the tags say "cudnn" for cuDNN 9.
			img.CUDNN = "9"
		case m[2] != "":
			img.CUDNN = strings.TrimPrefix(m[2], "cudnn")
		}
		img.Python = osPython[img.OS]
	case "pytorch/pytorch":
		img.Family = FamilyPyTorch
		img.Framework = frameworks.Torch
		m := torchTagRe().FindStringSubmatch(tag)
		if m == nil {
			img.Unknown = "the torch version of tag " + tag
			return img
		}
		img.FrameworkVersion, img.CUDA, img.CUDNN, img.Flavour = m[1], m[2], m[3], m[4]
	case "tensorflow/tensorflow":
		img.Family = FamilyTensorFlow
		img.Framework = frameworks.TensorFlow
		m := tfTagRe().FindStringSubmatch(tag)
		switch {
		case m == nil:
			img.Unknown = "the TensorFlow version of tag " + tag
		case m[2] == "gpu":
			img.FrameworkVersion, img.Flavour = m[1], "gpu"
			if m[1] == "" {
				img.Unknown = "the TensorFlow version of tag " + tag + " (it moves with each release)"
			}
		default:
			img.FrameworkVersion, img.Flavour = m[3], "cpu"
		}
	case "nvcr.io/nvidia/pytorch":
		img.Family = FamilyNGCPyTorch
		img.Framework = frameworks.Torch
		img.Unknown = "the torch, CUDA, cuDNN and driver floor of NGC release " + tag + " (NGC release notes are not in the database)"
		if ngcTagRe().FindStringSubmatch(tag) == nil {
			img.Unknown = ngcUnknownTag(tag)
		}
	case "nvcr.io/nvidia/tensorflow", "nvcr.io/nvidia/jax", "nvcr.io/nvidia/tritonserver":
		img.Family = FamilyNGC
		img.Unknown = "the CUDA, cuDNN and driver floor of NGC release " + tag + " (its release notes are not in the database)"
		if ngcTagRe().FindStringSubmatch(tag) == nil {
			img.Unknown = ngcUnknownTag(tag)
		}
	case "python":
		img.Family = FamilyPython
		if m := pythonTagRe().FindStringSubmatch(tag); m != nil && strings.Contains(m[1], ".") {
			img.Python = m[1]
		} else {
			img.Unknown = "the Python minor version of tag " + tag
		}
	default:
		if m := osImageRe().FindStringSubmatch(name + ":" + tag); m != nil {
			v := m[2]
			if u, ok := ubuntuCodeOS[v]; ok {
				v = u
			}
			img.OS = m[1] + v
			if m[1] == "debian" {
				img.OS = "debian" + v
			}
			img.Python = osPython[img.OS]
			if img.Python == "" {
				img.Python = osPython[v]
			}
		}
	}
	return img
}

// HasCUDA reports whether the image carries a CUDA runtime.
func (i *Image) HasCUDA() bool {
	return i != nil && (i.CUDA != "" || i.Family == FamilyNGCPyTorch || i.Family == FamilyNGC || i.Family == FamilyTensorFlow && i.Flavour == "gpu")
}

// ngcUnknownTag says what cudb cannot tell of an NGC tag it does not
// judge: the release of an unversioned tag, or what a variant of a
// versioned release holds (24.10-py3-sdk, 24.10-py3-igpu).
func ngcUnknownTag(tag string) string {
	if ngcReleaseRe().MatchString(tag) {
		return "what the image variant " + tag + " of NGC release " + tag[:5] + " holds"
	}
	return "the NGC release of tag " + tag
}
