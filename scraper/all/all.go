// Package all links every source package into the binary (each registers
// itself with scraper.Register); import it for its side effect.
package all

import (
	_ "github.com/cudb/cudb/scraper/cudaarch"
	_ "github.com/cudb/cudb/scraper/cudadriver"
	_ "github.com/cudb/cudb/scraper/cudnn"
	_ "github.com/cudb/cudb/scraper/driverbranch"
	_ "github.com/cudb/cudb/scraper/gpus"
	_ "github.com/cudb/cudb/scraper/jax"
	_ "github.com/cudb/cudb/scraper/onnxruntime"
	_ "github.com/cudb/cudb/scraper/pytorch"
	_ "github.com/cudb/cudb/scraper/tensorflow"
)
