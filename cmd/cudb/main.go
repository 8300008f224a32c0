// Command cudb answers which NVIDIA driver, CUDA, cuDNN, framework build
// and GPU go together, from a database embedded in the binary.
package main

import (
	"os"

	"github.com/cudb/cudb/cmd/cudb/internal/app"
	"github.com/cudb/cudb/cmd/cudb/internal/cli"
)

func main() {
	os.Exit(app.Main(os.Args[1:], cli.SystemStreams()))
}
