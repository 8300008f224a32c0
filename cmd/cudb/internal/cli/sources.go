package cli

// Every source package registers itself with scraper.Register; linking
// them here makes `refresh` and `db build` see them.
import _ "github.com/cudb/cudb/scraper/all"
