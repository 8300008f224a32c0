package app

import (
	"context"
	"sync"
	"testing"

	"github.com/cudb/cudb/cmd/cudb/internal/cli"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cudb/cudb/query/querytest"
)

// TestMCPConcurrentCalls: an agent may call tools concurrently; each call
// runs its own command tree over the one shared database handle (run
// with -race in CI).
func TestMCPConcurrentCalls(t *testing.T) {
	s, _, _ := cli.TestStreams("")
	f := NewFactory(s)
	f.DBPath = querytest.Path(t)
	ctx := context.Background()
	if _, err := f.DB(ctx); err != nil {
		t.Fatal(err)
	}
	cs := connectMCP(t, f)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := map[string]any{"requirements": []string{"torch==2.1"}, "cuda": "12.1"}
			name := "resolve"
			if i%2 == 1 {
				name, args = "pin", map[string]any{"requirements": []string{"torch==2.1"}, "format": "uv"}
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
			if err != nil || res.IsError || res.StructuredContent == nil {
				t.Errorf("%s: %v %+v", name, err, res)
			}
		}()
	}
	wg.Wait()
}

// connectMCP is an MCP client session with f's MCP server over an
// in-memory transport, closed when the test ends.
func connectMCP(t *testing.T, f *cli.Factory) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := NewMCPServer(f).Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
