package query

import (
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/query/querytest"
)

func fixtureDB(t testing.TB) *db.DB { return querytest.Open(t) }
