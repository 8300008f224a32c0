package usecase

import (
	"context"

	"github.com/cudb/cudb/query/findings"

	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/nvidia"
	"github.com/cudb/cudb/query/pin"
)

// This file names what the doors spell beside the six use cases: the
// words a result's fields hold (statuses, kernel support levels), the
// rows of each table, and the small questions the site's install
// selector and the CLI's completion ask (a driver's floors, a stack's
// file). Each is the query layer's own: nothing here judges.

// Statuses of a stack, a fit or a row.
const (
	StatusOK      = query.StatusOK
	StatusUnknown = query.StatusUnknown

	SupportSASS           = query.SupportSASS
	SupportSASSCompatible = query.SupportSASSCompatible
	SupportPTXJIT         = query.SupportPTXJIT
	SupportNone           = query.SupportNone

	CUDASupported   = nvidia.CUDASupported
	CUDADropped     = nvidia.CUDADropped
	CUDAUnsupported = nvidia.CUDAUnsupported
	CUDAUnknown     = nvidia.CUDAUnknown

	// DriverPattern, DriverMajorMin and DriverMajorMax are the driver
	// versions ParseDriver accepts.
	DriverPattern  = nvidia.DriverPattern
	DriverMajorMin = nvidia.DriverMajorMin
	DriverMajorMax = nvidia.DriverMajorMax
)

// Verify's finding categories a door names.
const (
	CatProbeIncomplete  = findings.CatProbeIncomplete
	CatMultipleCUDALibs = findings.CatMultipleCUDALibs
	CatDriverTooOld     = findings.CatDriverTooOld
	CatCUDNNMissing     = findings.CatCUDNNMissing
	CatCUDNNMismatch    = findings.CatCUDNNMismatch
	CatArchUnsupported  = findings.CatArchUnsupported
)

// Rows and parts of results.
type (
	GPUFit           = query.GPUFit
	Range            = query.Range
	Floors           = nvidia.Floors
	DriverVerdict    = nvidia.DriverVerdict
	GPUGrid          = query.GPUGrid
	GridRow          = query.GridRow
	TorchRow         = query.TorchRow
	TensorFlowRow    = query.TensorFlowRow
	JAXRow           = query.JAXRow
	ONNXRuntimeRow   = query.ONNXRuntimeRow
	Joint            = query.Joint
	Newest           = query.Newest
	PinRenderOptions = pin.PinOptions
)

// FloorOS is whose driver floors an answer uses: the driver's OS when
// stated, windows for --platform windows, else linux.
func FloorOS(platform, driverOS string) string { return nvidia.FloorOS(platform, driverOS) }

// ParseDriver validates a driver version ("535.104.05", "r470").
func ParseDriver(s string) (string, error) { return nvidia.ParseDriver(s) }

// CheckDriver judges a driver against a CUDA toolkit on an OS.
func CheckDriver(ctx context.Context, d *DB, driver, cuda, os string) (DriverVerdict, error) {
	return nvidia.CheckDriverOS(ctx, d, driver, cuda, os)
}

// CombineStacks joins per-framework stacks into the ones that share one
// environment on platform.
func CombineStacks(per [][]Stack, platform string) (*Joint, error) {
	return query.CombineStacks(per, platform)
}

// RenderStack writes one resolved stack as a pin file in format.
func RenderStack(ctx context.Context, d *DB, r ResolveRequest, format string, opts PinRenderOptions, s *Stack) (string, error) {
	return pin.RenderStack(ctx, d, r, format, opts, s)
}

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string { return pin.ShellQuote(s) }

// Info describes the open database (schema, sources, age).
func Info(ctx context.Context, d *DB) (*DataInfo, error) { return query.Info(ctx, d) }

// NewestReleases is the newest release the data knows of each line.
func NewestReleases(ctx context.Context, d *DB) ([]Newest, error) {
	return query.NewestReleases(ctx, d)
}

// StackGPUFit judges whether a stack carries kernels for compute
// capability cc; keep is false when it cannot run there, gap names what
// the data does not say.
func StackGPUFit(ctx context.Context, d *DB, s *Stack, cc string) (fit GPUFit, keep bool, gap string) {
	return query.StackGPUFit(ctx, d, s, cc)
}

// CUDNNReleases lists the cuDNN releases known without a support-matrix
// row, newest first.
func CUDNNReleases(ctx context.Context, d *DB) ([]CUDNNRelease, error) {
	return nvidia.CUDNNReleases(ctx, d, nil)
}

// KnownGPU reports whether the GPU table knows a GPU of this name (the
// probe skips nvidia-smi when the kernel files name only known GPUs).
func KnownGPU(ctx context.Context, d *DB, name string) bool {
	_, err := nvidia.LookupGPU(ctx, d, name)
	return err == nil
}
